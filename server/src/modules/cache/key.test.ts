import { describe, expect, it } from 'vitest';
import type { PreparedChat } from '../chat';
import { type CacheIdentity, cacheKey, canonicalJson } from './key';

const identity: CacheIdentity = { mode: 'live', model: 'm', provider: 'openai', upstreamModel: 'gpt' };

function prepared(request: Record<string, unknown>, extra: Partial<PreparedChat> = {}): PreparedChat {
  return { request, maxTokens: 100, functions: false, ...extra } as unknown as PreparedChat;
}

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };

describe('cacheKey', () => {
  it('ignores key order and the delivery fields (stream, stream_options, user)', () => {
    const a = cacheKey('acc_1', identity, prepared(base));
    const reordered = { temperature: 0.2, messages: [{ content: 'hi', role: 'user' }], model: 'm' };
    expect(cacheKey('acc_1', identity, prepared(reordered))).toBe(a);
    const delivered = { ...base, stream: true, stream_options: { include_usage: true }, user: 'u' };
    expect(cacheKey('acc_1', identity, prepared(delivered))).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with the organisation, what serves the model, every other field and the cap', () => {
    const a = cacheKey('acc_1', identity, prepared(base));
    const others = [
      cacheKey('acc_2', identity, prepared(base)),
      cacheKey('acc_1', { ...identity, mode: 'test' }, prepared(base)),
      cacheKey('acc_1', { ...identity, provider: 'simulator' }, prepared(base)),
      cacheKey('acc_1', { ...identity, upstreamModel: 'gpt-2' }, prepared(base)),
      cacheKey('acc_1', identity, prepared({ ...base, temperature: 0.3 })),
      cacheKey('acc_1', identity, prepared({ ...base, seed: 1 })),
      cacheKey('acc_1', identity, prepared({ ...base, messages: [{ role: 'user', content: 'hi!' }] })),
      cacheKey(
        'acc_1',
        identity,
        prepared({ ...base, tools: [{ type: 'function', function: { name: 'f' } }] }),
      ),
      cacheKey('acc_1', identity, prepared(base, { maxTokens: 50 })),
      cacheKey('acc_1', identity, prepared(base, { functions: true })),
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
  });

  it('keeps nested objects’ fields named like delivery fields (only the top level drops them)', () => {
    expect(canonicalJson({ b: 1, a: { user: 'x', stream: true } }, true)).toBe(
      '{"a":{"stream":true,"user":"x"},"b":1}',
    );
    expect(canonicalJson({ user: 'x', a: [2, { d: null, c: undefined }] }, true)).toBe(
      '{"a":[2,{"d":null}]}',
    );
  });
});

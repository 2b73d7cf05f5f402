/**
 * What the response cache keeps, in front of a fake OpenAI-compatible upstream with a live key: whole answers
 * only (a failed call, a stream cut by the upstream's silence or by the client leaving is not stored), a
 * streamed tool call put back together whole, and a hit that reserves nothing from the allowance.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AllowanceSpy, catalogueEntry, spyOnAllowance, writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccount, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let upstream: FakeUpstream;
let spy: AllowanceSpy;
let key: string;
beforeAll(async () => {
  upstream = await startFakeOpenAi({ dripMs: 10 });
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        catalogueEntry('c-ok', 'openai', 'ok'),
        catalogueEntry('c-500', 'openai', 'fail500'),
        catalogueEntry('c-stall', 'openai', 'stall'),
        catalogueEntry('c-drip', 'openai', 'drip'),
        catalogueEntry('c-tools', 'openai', 'toolsnousage'),
      ]),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-secret',
      MODEL_TIMEOUT_MS: '500',
      UPSTREAM_RETRIES: '0',
      PLAN_PRO_RPM: '100000',
    },
  });
  const account = await createAccount(server, { plan: 'pro' });
  key = (await createKey(server, account.id, 'live', 'cached', { cacheTtlSeconds: 3600 })).key;
  spy = spyOnAllowance(server);
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  spy.reserved.length = 0;
});

const messages = [{ role: 'user' as const, content: 'What is stored?' }];

function post(model: string, body: Record<string, unknown> = {}, signal?: AbortSignal) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, ...body }),
    ...(signal && { signal }),
  });
}

async function twice(model: string, body: Record<string, unknown> = {}): Promise<(string | null)[]> {
  const seen: (string | null)[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await post(model, body);
    await res.arrayBuffer();
    seen.push(res.headers.get('x-tessera-cache'));
  }
  return seen;
}

describe('what the response cache stores', () => {
  it('not a failed call', async () => {
    expect(await twice('c-500')).toEqual(['miss', 'miss']);
    expect(upstream.requests).toHaveLength(2);
  });

  it('not a stream that ended in an error event (the upstream went silent)', async () => {
    const first = await post('c-stall', { stream: true, stream_options: { include_usage: true } });
    const text = await first.text();
    expect(text).toContain('"model_timeout"');
    expect(await twice('c-stall', { stream: true })).toEqual(['miss', 'miss']);
  });

  it('not a stream the client left', async () => {
    const abort = new AbortController();
    const res = await post('c-drip', { stream: true, stream_options: { include_usage: true } }, abort.signal);
    expect(res.headers.get('x-tessera-cache')).toBe('miss');
    const reader = res.body?.getReader();
    await reader?.read();
    abort.abort();
    await reader?.cancel().catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    const leave = new AbortController();
    const again = await post(
      'c-drip',
      { stream: true, stream_options: { include_usage: true } },
      leave.signal,
    );
    expect(again.headers.get('x-tessera-cache')).toBe('miss');
    leave.abort();
  });

  it('a streamed tool call, whole, and a hit reserves nothing', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'c-tools', messages, stream: true });
    for await (const _ of stream) {
      // read to the end
    }
    expect(spy.reserved).toHaveLength(1);
    // Stored once the call's usage is known, just after the stream ended (it asked for no usage).
    let hit: { data: OpenAI.ChatCompletion; response: Response } | undefined;
    for (let i = 0; i < 50; i++) {
      hit = await client.chat.completions.create({ model: 'c-tools', messages }).withResponse();
      if (hit.response.headers.get('x-tessera-cache') === 'hit') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(hit?.response.headers.get('x-tessera-cache')).toBe('hit');
    expect(hit?.data.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'lookup', arguments: '{"query": "tides and moons"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    const reservedBeforeHits = spy.reserved.length;
    await twice('c-tools');
    expect(spy.reserved).toHaveLength(reservedBeforeHits);
    expect(upstream.requests.length).toBe(reservedBeforeHits);
  });
});

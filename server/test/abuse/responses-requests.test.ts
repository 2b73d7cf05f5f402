import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server';
import { expectBounded, expectRefused, newKey, post, startAbuseServer } from './harness';

/**
 * POST /v1/responses with as many input items as a body's 100,000 JSON values allow: each item is checked by zod
 * (a few microseconds each, 100-400 ms for 30,000 at once on a loaded 2-core machine), then translated and
 * checked again by the chat path. Both check a slice a turn, so the event loop stays free, and the answer is the
 * context window's 400.
 */
let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startAbuseServer();
  key = await newKey(server);
});
afterAll(async () => {
  await server?.close();
});

const body = (input: unknown[]) => JSON.stringify({ model: 'tessera-fast-4k', input });

describe('POST /v1/responses with many input items', () => {
  it('30,000 messages: the context window’s 400, the loop free', async () => {
    const text = body(
      Array.from({ length: 30_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x' })),
    );
    const { answer } = await expectBounded('30,000 messages', () => post(server, key, '/v1/responses', text));
    expectRefused(answer, 400, 'context_length_exceeded');
    expect(answer.body.error?.param).toBe('input');
  }, 120_000);

  it('16,000 function calls and outputs: the context window’s 400, the loop free', async () => {
    const items = Array.from({ length: 8_000 }, (_, i) => [
      { type: 'function_call', call_id: `c${i}`, name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: `c${i}`, output: 'ok' },
    ]).flat();
    const text = body([{ role: 'user', content: 'go' }, ...items]);
    const { answer } = await expectBounded('16,000 tool items', () =>
      post(server, key, '/v1/responses', text),
    );
    expectRefused(answer, 400, 'context_length_exceeded');
  }, 120_000);

  it('a bad item at the end of 30,000 is found and named, the loop free', async () => {
    const input: unknown[] = Array.from({ length: 30_000 }, () => ({ role: 'user', content: 'x' }));
    input.push({ role: 'robot', content: 'x' });
    const { answer } = await expectBounded('a bad last item', () =>
      post(server, key, '/v1/responses', body(input)),
    );
    expectRefused(answer, 400, 'invalid_value');
    expect(answer.body.error?.param).toBe('input[30000].role');
  }, 120_000);
});

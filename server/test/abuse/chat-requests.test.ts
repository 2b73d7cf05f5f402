import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingThread } from '../../src/modules/tokenizer';
import type { TestServer } from '../helpers/server';
import { variedText } from '../helpers/text';
import { type Answer, expectBounded, newKey, post, startAbuseServer } from './harness';

/**
 * Issue 27, item 4, and the chat request's other expensive knobs: long prompts (the first a process counts
 * included), giant `n`, `max_tokens` and `stop`, many messages. Each is answered or refused while the event loop
 * stays free.
 */
let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startAbuseServer({ BODY_LIMIT_BYTES: String(8 * 1024 * 1024) });
  key = await newKey(server);
});
afterAll(async () => {
  await server?.close();
});

function chat(body: Record<string, unknown>, model = 'tessera-long-100k'): () => Promise<Answer> {
  const text = JSON.stringify({ model, ...body });
  return () => post(server, key, '/v1/chat/completions', text);
}

const user = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('the first long prompt a process counts', () => {
  // A megabyte of prompt with an unbroken 200,000-character run in it: BPE merges such a run as one piece, which
  // the event loop cannot count in short turns (seconds of CPU), so it must wait for the counting thread.
  const prompt = `${variedText(800_000, 3)} ${'x'.repeat(200_000)} ${variedText(10_000, 4)}`;

  it('is counted off the event loop even while the counting thread starts', async () => {
    const send = chat({ ...user(prompt), max_tokens: 5 });
    const { answer } = await expectBounded('first long prompt', async () => {
      // Each round is a process's first: the thread is stopped, so the prompt starts a new one.
      await countingThread.stop();
      return send();
    });
    // Counted all the same: a megabyte is more than the model's context.
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('context_length_exceeded');
  }, 120_000);
});

describe('long and large requests', () => {
  const cases: [string, () => Promise<Answer>, number[]][] = [
    ['a long ordinary prompt', chat({ ...user(variedText(200_000, 7)), max_tokens: 5 }), [200]],
    ['giant max_tokens', chat({ ...user('Hello'), max_tokens: 2_000_000_000 }), [400]],
    [
      'n at its limit with a long prompt',
      chat({ ...user(variedText(100_000, 8)), n: 8, max_tokens: 50 }),
      [200],
    ],
    ['n over its limit', chat({ ...user('Hello'), n: 100_000 }), [400]],
    [
      'huge stop strings',
      chat({
        ...user('Hello there'),
        stop: Array.from({ length: 4 }, (_, i) => `${i}${'z'.repeat(500_000)}`),
      }),
      [200],
    ],
    [
      'a stop list over its limit',
      chat({ ...user('Hello'), stop: Array.from({ length: 10_000 }, String) }),
      [400],
    ],
    [
      'many messages',
      chat({
        messages: Array.from({ length: 5_000 }, (_, i) => ({ role: 'user', content: `m${i}` })),
        max_tokens: 5,
      }),
      [200, 400],
    ],
    [
      'a long prompt with tools and parallel calls',
      chat({
        ...user(`Weather in Paris, Rome and Tokyo. ${variedText(100_000, 9)}`),
        n: 8,
        tools: [
          {
            type: 'function',
            function: {
              name: 'weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
        ],
        tool_choice: 'required',
      }),
      [200],
    ],
  ];
  for (const [label, send, statuses] of cases) {
    it(`${label}: answered or refused, the loop free`, async () => {
      const { answer } = await expectBounded(label, send);
      expect(statuses, `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`).toContain(answer.status);
    }, 120_000);
  }
});

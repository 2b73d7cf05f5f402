import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/modules/tokenizer';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { variedText } from '../helpers/text';

let server: TestServer;
let client: OpenAI;
let key: string;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      SIMULATOR_TOKEN_DELAY_MS: '0',
      PLAN_FREE_RPM: '100000',
      BODY_LIMIT_BYTES: String(8 * 1024 * 1024),
    },
  });
  key = (await createAccountWithKey(server)).key.key;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

// One user message: its text's tokens, 3 of framing, 1 for the role, 3 priming the reply.
const FRAMING = 7;

describe('long prompts', () => {
  it('are counted exactly, answered and streamed', async () => {
    const text = variedText(120_000, 3);
    const expected = countTokens(text) + FRAMING;
    const messages = [{ role: 'user' as const, content: text }];
    const whole = await client.chat.completions.create({
      model: 'tessera-long-100k',
      messages,
      max_tokens: 20,
    });
    expect(whole.usage?.prompt_tokens).toBe(expected);
    expect(whole.choices[0]?.finish_reason).toBe('length');
    const stream = await client.chat.completions.create({
      model: 'tessera-long-100k',
      messages,
      max_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage?.prompt_tokens).toBe(expected);
    const err = await client.chat.completions
      .create({ model: 'tessera-fast-4k', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    // Counted until it is past the context only: the rest of the prompt is never read.
    const counted = /your messages resulted in at least (\d+) tokens\./.exec((err as Error).message);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(4_096);
    expect(Number(counted?.[1])).toBeLessThan(expected);
  });

  it('do not hold up the requests that arrive while they are counted', async () => {
    // Twenty prompts of ~94,000 tokens each, all within the context, so each is counted to its end: one to three
    // seconds of counting on a 2-core machine, far more than the uploads take on loopback. The reference counts
    // first: the server runs in this process, and its loop would wait for them.
    const texts = Array.from({ length: 20 }, (_, i) => variedText(200_000, 5 + i));
    const expected = texts.map((text) => countTokens(text) + FRAMING);
    expect(Math.max(...expected)).toBeLessThan(100_000);
    const order: string[] = [];
    const bigs = texts.map((text) =>
      client.chat.completions
        .create({ model: 'tessera-long-100k', messages: [{ role: 'user', content: text }], max_tokens: 5 })
        .finally(() => order.push('long')),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    const small = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'hello' }],
    });
    order.push('short');
    expect(small.choices[0]?.finish_reason).toBe('stop');
    const answers = await Promise.all(bigs);
    // Counted exactly, to the end, all the same.
    expect(answers.map((a) => a.usage?.prompt_tokens)).toEqual(expected);
    // The short call did not wait for the queue of long ones to be counted.
    expect(order.indexOf('short'), order.join(' ')).toBeLessThan(order.length / 2);
  });
});

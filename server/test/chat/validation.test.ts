import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let client: OpenAI;
let key: string;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      SIMULATOR_TOKEN_DELAY_MS: '0',
      PLAN_FREE_RPM: '100000',
      BODY_LIMIT_BYTES: '65536',
      CHAT_BODY_LIMIT_BYTES: '131072',
    },
  });
  key = (await createAccountWithKey(server)).key.key;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

const user = (content: string) => [{ role: 'user' as const, content }];

describe('validation errors become the right SDK errors', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['missing model', { messages: user('x') }, 'model', 'missing_required_parameter'],
    ['missing messages', { model: 'tessera-fast-4k' }, 'messages', 'missing_required_parameter'],
    ['empty messages', { model: 'tessera-fast-4k', messages: [] }, 'messages', 'invalid_value'],
    [
      'bad role',
      { model: 'tessera-fast-4k', messages: [{ role: 'robot', content: 'x' }] },
      'messages[0].role',
      'invalid_value',
    ],
    [
      'bad content',
      { model: 'tessera-fast-4k', messages: [{ role: 'user', content: 5 }] },
      'messages[0].content',
      'invalid_value',
    ],
    [
      'temperature',
      { model: 'tessera-fast-4k', messages: user('x'), temperature: 3 },
      'temperature',
      'invalid_value',
    ],
    ['top_p', { model: 'tessera-fast-4k', messages: user('x'), top_p: 1.5 }, 'top_p', 'invalid_value'],
    ['n zero', { model: 'tessera-fast-4k', messages: user('x'), n: 0 }, 'n', 'invalid_value'],
    ['n over cap', { model: 'tessera-fast-4k', messages: user('x'), n: 100 }, 'n', 'invalid_value'],
    [
      'five stops',
      { model: 'tessera-fast-4k', messages: user('x'), stop: ['a', 'b', 'c', 'd', 'e'] },
      'stop',
      'invalid_value',
    ],
    [
      'max_tokens 0',
      { model: 'tessera-fast-4k', messages: user('x'), max_tokens: 0 },
      'max_tokens',
      'invalid_value',
    ],
    [
      'max_tokens float',
      { model: 'tessera-fast-4k', messages: user('x'), max_tokens: 1.5 },
      'max_tokens',
      'invalid_value',
    ],
    [
      'max_tokens over model',
      { model: 'tessera-fast-4k', messages: user('x'), max_tokens: 99999 },
      'max_tokens',
      'invalid_value',
    ],
    [
      'max_completion_tokens',
      { model: 'tessera-fast-4k', messages: user('x'), max_completion_tokens: -1 },
      'max_completion_tokens',
      'invalid_value',
    ],
    [
      'presence_penalty',
      { model: 'tessera-fast-4k', messages: user('x'), presence_penalty: 3 },
      'presence_penalty',
      'invalid_value',
    ],
    [
      'frequency_penalty',
      { model: 'tessera-fast-4k', messages: user('x'), frequency_penalty: -3 },
      'frequency_penalty',
      'invalid_value',
    ],
    ['stream', { model: 'tessera-fast-4k', messages: user('x'), stream: 'yes' }, 'stream', 'invalid_value'],
    [
      'include_usage',
      { model: 'tessera-fast-4k', messages: user('x'), stream_options: { include_usage: 'x' } },
      'stream_options.include_usage',
      'invalid_value',
    ],
    [
      'stream_options without stream',
      { model: 'tessera-fast-4k', messages: user('x'), stream_options: { include_usage: true } },
      'stream_options',
      'invalid_value',
    ],
    [
      'response_format',
      { model: 'tessera-fast-4k', messages: user('x'), response_format: { type: 'xml' } },
      'response_format.type',
      'invalid_value',
    ],
    ['seed', { model: 'tessera-fast-4k', messages: user('x'), seed: 'abc' }, 'seed', 'invalid_value'],
    ['user', { model: 'tessera-fast-4k', messages: user('x'), user: 42 }, 'user', 'invalid_value'],
    [
      'null user content',
      { model: 'tessera-fast-4k', messages: [{ role: 'user', content: null }] },
      'messages[0].content',
      'invalid_value',
    ],
    [
      'tool without id',
      { model: 'tessera-fast-4k', messages: [{ role: 'tool', content: '42' }] },
      'messages[0].tool_call_id',
      'invalid_value',
    ],
  ];
  for (const [label, body, param, code] of cases) {
    it(`${label} → BadRequestError param ${param}`, async () => {
      const err = await client.chat.completions.create(body as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      const e = err as InstanceType<typeof OpenAI.BadRequestError>;
      expect(e.status).toBe(400);
      expect(e.type).toBe('invalid_request_error');
      expect(e.param).toBe(param);
      expect(e.code).toBe(code);
      expect(e.message).toContain(param.split('.')[0]?.split('[')[0] ?? param);
      if (code === 'invalid_value' && !label.includes('over model'))
        expect(e.message).toMatch(/expected .+ received/);
    });
  }

  it('names the cap on n', async () => {
    const err = await client.chat.completions
      .create({ model: 'tessera-fast-4k', messages: user('x'), n: 100 })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/between 1 and 8.*received number 100/);
  });

  it('a conversation of thousands of messages (checked a slice at a time) names the first problem, as a short one does', async () => {
    const many = (bad?: number) =>
      Array.from({ length: 3_000 }, (_, i) => ({ role: i === bad ? 'robot' : 'user', content: 'hi' }));
    const paramOf = async (body: Record<string, unknown>) => {
      const err = await client.chat.completions.create(body as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return (err as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    expect(await paramOf({ model: 'tessera-fast-4k', messages: many(2_500) })).toBe('messages[2500].role');
    expect(await paramOf({ model: 'tessera-fast-4k', messages: many(0) })).toBe('messages[0].role');
    expect(await paramOf({ model: 5, messages: many(2_500) })).toBe('model');
    expect(await paramOf({ model: 'tessera-fast-4k', messages: many(2_500), temperature: 9 })).toBe(
      'messages[2500].role',
    );
    expect(await paramOf({ model: 'tessera-fast-4k', messages: many(), temperature: 9 })).toBe('temperature');
    const ok = await client.chat.completions.create({
      model: 'tessera-long-100k',
      messages: many() as never,
      max_tokens: 5,
    });
    // 3 tokens a message and 1 each for the role and 'hi', and 3 for the reply.
    expect(ok.usage?.prompt_tokens).toBe(3_000 * 5 + 3);
  });

  it('unknown model → NotFoundError model_not_found', async () => {
    const err = await client.chat.completions
      .create({ model: 'gpt-17', messages: user('x') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    expect((err as Error).message).toContain("'gpt-17'");
  });

  it('over the context window → context_length_exceeded in OpenAI words, counted with BPE', async () => {
    // 5,000 repetitions of " hello" are 5,000 tokens but 30,000 characters: a chars/4 estimate would say 7,500.
    const long = ' hello'.repeat(5_000);
    const err = await client.chat.completions
      .create({ model: 'tessera-fast-4k', messages: user(long) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).toBe('context_length_exceeded');
    expect(e.param).toBe('messages');
    expect(e.message).toMatch(
      /^400 This model's maximum context length is 4096 tokens\. However, your messages resulted in 50\d\d tokens\./,
    );
    const fits = await client.chat.completions.create({
      model: 'tessera-reason-8k',
      messages: user(long),
      max_tokens: 1,
    });
    expect(fits.usage?.prompt_tokens).toBeLessThan(5_020);
    const withCap = await client.chat.completions
      .create({ model: 'tessera-reason-8k', messages: user(long), max_tokens: 4000 })
      .catch((x: unknown) => x);
    expect((withCap as Error).message).toMatch(
      /you requested \d+ tokens \(50\d\d in the messages, 4000 in the completion\)/,
    );
  });
});

describe('text that used to break the tokenizer', () => {
  it("a special token's spelling is plain text: counted and answered, not a 500", async () => {
    const res = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('Ignore <|endoftext|> and <|endofprompt|> please'),
    });
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage?.prompt_tokens).toBeGreaterThan(10);
  });

  it('a 60,000-letter word is counted at once (the quadratic merge held the event loop for minutes)', async () => {
    const word = 'x'.repeat(60_000);
    const ok = await client.chat.completions.create({ model: 'tessera-long-100k', messages: user(word) });
    // 60,000 x's are 7,500 tokens of 8 letters, plus the chat framing; the answer does not repeat the word.
    expect(ok.usage?.prompt_tokens).toBe(7_500 + 7);
    expect(ok.choices[0]?.message.content?.length).toBeLessThan(1_000);
    const streamed = await client.chat.completions.create({
      model: 'tessera-long-100k',
      messages: user(`${word.slice(0, 40_000)} and ${'ab'.repeat(5_000)}`),
      stream: true,
    });
    let chunks = 0;
    for await (const _ of streamed) chunks += 1;
    expect(chunks).toBeGreaterThan(2);
    const tooLong = await client.chat.completions
      .create({ model: 'tessera-fast-4k', messages: user(word) })
      .catch((e: unknown) => e);
    // Counting stops once the prompt is past the context (the rest of a long prompt is never counted).
    const counted = /your messages resulted in at least (\d+) tokens\./.exec((tooLong as Error).message);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(4_096);
    expect(Number(counted?.[1])).toBeLessThanOrEqual(7_507);
  });
});

describe('body error contract on POST /v1/chat/completions', () => {
  const post = (body: string, type = 'application/json') =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': type },
      body,
    });
  const errorOf = async (res: Response) => ((await res.json()) as { error: Record<string, unknown> }).error;

  it('bad JSON → 400, huge body → 413, wrong content type → 415, non-object → 400', async () => {
    const bad = await post('{"model": "tessera-fast-4k", "messages": [');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).code).toBe('invalid_json');
    // Chat requests have a limit of their own (CHAT_BODY_LIMIT_BYTES), for inline images.
    const huge = await post(
      JSON.stringify({ model: 'tessera-fast-4k', messages: user('x'.repeat(140_000)) }),
    );
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).message).toContain('131072');
    const image = `data:image/png;base64,${Buffer.alloc(75_000, 7).toString('base64')}`;
    const withImage = await post(
      JSON.stringify({
        model: 'tessera-fast-4k',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: image } },
            ],
          },
        ],
      }),
    );
    expect(withImage.status).toBe(200);
    // Other routes keep BODY_LIMIT_BYTES.
    const search = await fetch(`${server.url}/api/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'x'.repeat(70_000) }),
    });
    expect(search.status).toBe(413);
    expect((await errorOf(search)).message).toContain('65536');
    const text = await post('{"model":"tessera-fast-4k"}', 'text/plain');
    expect(text.status).toBe(415);
    const list = await post('[1,2]');
    expect(list.status).toBe(400);
    expect(Object.keys(await errorOf(list)).sort()).toEqual(['code', 'message', 'param', 'type']);
  });
});

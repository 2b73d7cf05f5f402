import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_FALLBACK_OWNER } from '../src/modules/providers';
import { type AllowanceSpy, eventually, spyOnAllowance } from './helpers/chat-setup';
import { createAccountWithKey } from './helpers/fixtures';
import { startTestServer, type TestServer } from './helpers/server';

let server: TestServer;
let client: OpenAI;
let key: string;
beforeAll(async () => {
  server = await startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', BODY_LIMIT_BYTES: '65536' },
  });
  key = (await createAccountWithKey(server)).key.key;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

const user = (content: string) => [{ role: 'user' as const, content }];

describe('POST /v1/chat/completions with the simulator (test key, openai SDK)', () => {
  it('answers non-streamed exactly in OpenAI shape, deterministically, with true token counts', async () => {
    const body = { model: 'tessera-fast-4k', messages: user('Explain glaciers and fjords in Norway') };
    const a = await client.chat.completions.create(body);
    expect(a.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
    expect(a.object).toBe('chat.completion');
    expect(Math.abs(a.created - Date.now() / 1000)).toBeLessThan(60);
    expect(a.model).toBe('tessera-fast-4k');
    const choice = a.choices[0];
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.refusal).toBeNull();
    expect(choice?.logprobs).toBeNull();
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.content).toMatch(/glaciers|fjords|norway/i);
    const { encoder } = await import('../src/modules/tokenizer');
    expect(a.usage?.completion_tokens).toBe(encoder().encode(choice?.message.content ?? '').length);
    // 3 (priming) + 3 (framing) + 1 (role "user") + the content's own tokens.
    expect(a.usage?.prompt_tokens).toBe(7 + encoder().encode('Explain glaciers and fjords in Norway').length);
    expect(a.usage?.total_tokens).toBe((a.usage?.prompt_tokens ?? 0) + (a.usage?.completion_tokens ?? 0));
    const b = await client.chat.completions.create(body);
    expect(b.choices[0]?.message.content).toBe(choice?.message.content);
    expect(b.id).not.toBe(a.id);
    const other = await client.chat.completions.create({
      ...body,
      messages: user('Recipes for sourdough bread'),
    });
    expect(other.choices[0]?.message.content).not.toBe(choice?.message.content);
  });

  it('honours max_tokens (finish length), stop and n', async () => {
    const messages = user('Describe volcanoes, lava, magma and eruptions');
    const capped = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages,
      max_tokens: 4,
    });
    expect(capped.choices[0]?.finish_reason).toBe('length');
    expect(capped.usage?.completion_tokens).toBe(4);

    const full = await client.chat.completions.create({ model: 'tessera-fast-4k', messages });
    const text = full.choices[0]?.message.content ?? '';
    const stop = text.split(' ')[3] ?? '';
    const stopped = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages,
      stop: [stop],
    });
    expect(stopped.choices[0]?.finish_reason).toBe('stop');
    expect(stopped.choices[0]?.message.content).toBe(text.slice(0, text.indexOf(stop)));

    const three = await client.chat.completions.create({ model: 'tessera-fast-4k', messages, n: 3 });
    expect(three.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(three.choices.map((c) => c.message.content)).size).toBeGreaterThan(1);
  });

  it('streams chunks with one id, the role first, a finish chunk, the usage chunk and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'tessera-reason-8k',
      messages: user('Write about comets and asteroids'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^chatcmpl-/);
    expect(new Set(chunks.map((c) => c.created)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    const finish = chunks.at(-2)?.choices[0];
    expect(finish?.finish_reason).toBe('stop');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const whole = await client.chat.completions.create({
      model: 'tessera-reason-8k',
      messages: user('Write about comets and asteroids'),
    });
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(last?.usage).toEqual(whole.usage);
    // Content arrives token by token, not in one piece.
    expect(chunks.length).toBeGreaterThan(10);
  });

  it('sends SSE on the wire: event-stream headers, data lines, [DONE], no usage chunk by default', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tessera-fast-4k',
        messages: user('hi there'),
        stream: true,
        max_tokens: 3,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('length');
  });

  it('answers JSON in JSON mode', async () => {
    const res = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('List three rivers'),
      response_format: { type: 'json_object' },
    });
    const parsed = JSON.parse(res.choices[0]?.message.content ?? '') as { answer: string };
    expect(parsed.answer).toMatch(/rivers/i);
  });

  it('ignores unknown fields', async () => {
    const res = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('hello'),
      max_tokens: 2,
      // @ts-expect-error: a field OpenAI may add some day
      something_new: { nested: true },
    });
    expect(res.choices).toHaveLength(1);
  });
});

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
    const huge = await post(JSON.stringify({ model: 'tessera-fast-4k', messages: user('x'.repeat(70_000)) }));
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).message).toContain('65536');
    const text = await post('{"model":"tessera-fast-4k"}', 'text/plain');
    expect(text.status).toBe(415);
    const list = await post('[1,2]');
    expect(list.status).toBe(400);
    expect(Object.keys(await errorOf(list)).sort()).toEqual(['code', 'message', 'param', 'type']);
  });
});

describe('live keys without any upstream configured', () => {
  let slow: TestServer;
  let liveClient: OpenAI;
  let spy: AllowanceSpy;
  beforeAll(async () => {
    slow = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '20', PLAN_PRO_RPM: '100000' } });
    const live = (await createAccountWithKey(slow, { plan: 'pro', kind: 'live' })).key.key;
    liveClient = new OpenAI({ apiKey: live, baseURL: `${slow.url}/v1`, maxRetries: 0 });
    spy = spyOnAllowance(slow);
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('owned_by says plainly that the simulator answers', async () => {
    const list = await liveClient.models.list();
    expect(list.data.map((m) => m.owned_by)).toEqual(list.data.map(() => SIMULATOR_FALLBACK_OWNER));
  });

  it('reserves prompt + cap, settles the real usage', async () => {
    const res = await liveClient.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('Explain tides'),
      max_tokens: 7,
      n: 2,
    });
    expect(spy.reserved.at(-1)).toBe((res.usage?.prompt_tokens ?? 0) + 14);
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled.at(-1)).toBe(res.usage?.total_tokens);
  });

  it('a client abort stops the simulated stream and settles the tokens produced so far', async () => {
    const controller = new AbortController();
    const stream = await liveClient.chat.completions.create(
      {
        model: 'tessera-fast-4k',
        messages: user('Explain tides and moons and oceans at length'),
        stream: true,
      },
      { signal: controller.signal },
    );
    let pieces = 0;
    await (async () => {
      for await (const c of stream) {
        if (c.choices[0]?.delta.content) pieces += 1;
        if (pieces === 3) controller.abort();
      }
    })().catch(() => undefined);
    await eventually(() => spy.settled.length === 2);
    const full = await liveClient.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('Explain tides and moons and oceans at length'),
    });
    const settled = spy.settled[1] ?? 0;
    const prompt = full.usage?.prompt_tokens ?? 0;
    // At least the 3 tokens the client saw, far fewer than the whole answer.
    expect(settled - prompt).toBeGreaterThanOrEqual(3);
    expect(settled - prompt).toBeLessThan((full.usage?.completion_tokens ?? 0) - 5);
  });
});

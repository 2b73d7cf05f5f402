import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_FALLBACK_OWNER } from '../../src/modules/providers';
import { type AllowanceSpy, eventually, spyOnAllowance } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

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
    const { libraryEncoder: encoder } = await import('../../src/modules/tokenizer');
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

import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AllowanceSpy, eventually, spyOnAllowance, writeFakeCatalogue } from './helpers/chat-setup';
import {
  FAKE_TEXT,
  type FakeUpstream,
  LINGER_MS,
  startFakeAnthropic,
  startFakeOpenAi,
} from './helpers/fake-upstreams';
import { createAccountWithKey } from './helpers/fixtures';
import { startTestServer, type TestServer } from './helpers/server';

const OPENAI_SECRET = 'sk-upstream-secret-123';
const ANTHROPIC_SECRET = 'ant-upstream-secret-456';

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestServer;
let live: OpenAI;
let liveKey: string;
let testKey: string;
let spy: AllowanceSpy;

beforeAll(async () => {
  openai = await startFakeOpenAi({ slowMs: 400, dripMs: 30 });
  anthropic = await startFakeAnthropic();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFakeCatalogue(),
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: OPENAI_SECRET,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: ANTHROPIC_SECRET,
      MODEL_TIMEOUT_MS: '1000',
      STREAM_KEEPALIVE_MS: '100',
      UPSTREAM_RETRIES: '2',
      UPSTREAM_RETRY_BACKOFF_MS: '20',
      SIMULATOR_TOKEN_DELAY_MS: '0',
      PLAN_PRO_RPM: '100000',
    },
  });
  liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
  testKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'test' })).key.key;
  live = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  spy = spyOnAllowance(server);
});
afterAll(async () => {
  await server?.close();
  await openai?.close();
  await anthropic?.close();
});
beforeEach(() => {
  openai.requests.length = 0;
  anthropic.requests.length = 0;
  spy.reserved.length = 0;
  spy.settled.length = 0;
});

const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Say hello' },
];

function rawStream(model: string, key = liveKey, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, stream: true, ...extra }),
  });
}

describe('OpenAI-compatible upstream', () => {
  it('non-streamed: our id and model, upstream usage, the upstream model name and key sent upstream', async () => {
    const res = await live.chat.completions.create({ model: 'up-ok', messages });
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.id).not.toBe('chatcmpl-upstream');
    expect(res.model).toBe('up-ok');
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(res.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const sent = openai.requests[0];
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.body.model).toBe('ok');
    expect(sent?.headers.authorization).toBe(`Bearer ${OPENAI_SECRET}`);
    // The live key reserved prompt + cap and settled to the upstream's real usage.
    expect(spy.reserved).toHaveLength(1);
    expect(spy.reserved[0]).toBeGreaterThan(2048);
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([18]);
  });

  it('relays a stream chunk by chunk with our id, adding the usage chunk', async () => {
    const stream = await live.chat.completions.create({
      model: 'up-ok',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.id).not.toBe('chatcmpl-upstream');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FAKE_TEXT);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(openai.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it('ends the stream at the upstream [DONE], and keeps the connection when the upstream ends late', async () => {
    // The upstream holds its response open after [DONE]: the client gets the end at once, and the rest of the
    // body is read in the background, so the connection serves the next call instead of being closed.
    await live.chat.completions.create({ model: 'up-linger', messages });
    await new Promise((r) => setTimeout(r, LINGER_MS + 100));
    const before = openai.connections;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const stream = await live.chat.completions.create({ model: 'up-linger', messages, stream: true });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      expect(text).toBe(FAKE_TEXT);
      expect(performance.now() - started).toBeLessThan(LINGER_MS);
      await new Promise((r) => setTimeout(r, LINGER_MS + 100));
    }
    expect(openai.connections).toBe(before);
  });

  it('passes tool calls through', async () => {
    const res = await live.chat.completions.create({ model: 'up-tools', messages });
    expect(res.choices[0]?.finish_reason).toBe('tool_calls');
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('lookup');
  });

  it('test keys never reach the upstream nor the allowance', async () => {
    const sim = new OpenAI({ apiKey: testKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const res = await sim.chat.completions.create({ model: 'up-ok', messages });
    expect(res.choices[0]?.message.content).not.toBe(FAKE_TEXT);
    expect(openai.requests).toHaveLength(0);
    expect(spy.reserved).toHaveLength(0);
  });

  it('owned_by names the configured provider', async () => {
    const list = await live.models.list();
    expect(list.data.find((m) => m.id === 'up-ok')?.owned_by).toBe('openai');
    expect(list.data.find((m) => m.id === 'claude-ok')?.owned_by).toBe('anthropic');
  });
});

describe('Anthropic Messages API', () => {
  it('translates the request and the answer', async () => {
    const res = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      stop: 'END',
      temperature: 1.5,
    });
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
    const sent = anthropic.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_SECRET);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toMatchObject({
      model: 'ok',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      stop_sequences: ['END'],
      temperature: 1,
      max_tokens: 2048,
    });
    const capped = await live.chat.completions.create({ model: 'claude-ok', messages, max_tokens: 3 });
    expect(capped.choices[0]?.finish_reason).toBe('length');
  });

  it('translates its stream events into OpenAI chunks', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FAKE_TEXT);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
  });
});

describe('Anthropic tool use', () => {
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    },
  ];
  const history = [
    { role: 'user' as const, content: 'Find x' },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'toolu_0', type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"w"}' } },
      ],
    },
    { role: 'tool' as const, tool_call_id: 'toolu_0', content: 'nothing for w' },
  ];

  it('translates tools, tool calls and tool results both ways', async () => {
    const res = await live.chat.completions.create({
      model: 'claude-tools',
      messages: history,
      tools,
      tool_choice: 'required',
    });
    const sent = anthropic.requests[0]?.body;
    expect(sent?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks up',
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ]);
    expect(sent?.tool_choice).toEqual({ type: 'any' });
    expect(sent?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Find x' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_0', name: 'lookup', input: { q: 'w' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'nothing for w' }] },
    ]);
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Let me look.');
    expect(choice?.message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
  });

  it('streams tool calls as OpenAI tool_call deltas', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-tools',
      messages: history,
      tools,
      stream: true,
    });
    let args = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const c of stream) {
      const call = c.choices[0]?.delta.tool_calls?.[0];
      if (call?.function?.name) name = call.function.name;
      args += call?.function?.arguments ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ q: 'x' });
    expect(finish).toBe('tool_calls');
  });
});

describe('timeouts, failures, retries and fallback', () => {
  it('a silent model → 500 model_timeout naming the timeout', async () => {
    const err = await live.chat.completions.create({ model: 'up-stall', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    const e = err as InstanceType<typeof OpenAI.InternalServerError>;
    expect(e.status).toBe(500);
    expect(e.code).toBe('model_timeout');
    expect(e.type).toBe('server_error');
    expect(e.message).toContain('1000 ms');
  });

  it('a stream that keeps coming is not cut by the timeout: it measures silence, not length', async () => {
    // A word every 30 ms for 12 s against a 1000 ms timeout: read for 1.8 s, well past one timeout.
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-drip', messages, stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const started = performance.now();
    let text = '';
    while (performance.now() - started < 1_800) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_800);
    expect(text).not.toContain('model_timeout');
    expect(text).toContain('"content":" w40"');
  });

  it('a stream that stalls after starting ends with an error event and no [DONE]', async () => {
    const res = await rawStream('up-stall');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":"Hello"');
    expect(text).toMatch(
      /data: \{"error":\{"message":"The model did not respond within the timeout of 1000 ms/,
    );
    expect(text).toContain('"code":"model_timeout"');
    expect(text).not.toContain('[DONE]');
    const stream = await live.chat.completions.create({ model: 'claude-stall', messages, stream: true });
    const failure = await (async () => {
      for await (const _ of stream) {
        // drain until the error event
      }
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
  });

  it('upstream 429 → our 503 with retry advice; upstream 500 → 502, retried, no secret leaked', async () => {
    const limited = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-429', messages }),
    });
    expect(limited.status).toBe(503);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('retry-after-ms')).toBe('1000');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('upstream_overloaded');

    openai.requests.length = 0;
    const failed = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-500', messages }),
    });
    expect(failed.status).toBe(502);
    expect(failed.headers.get('x-should-retry')).toBe('true');
    const text = await failed.text();
    expect(text).not.toContain(OPENAI_SECRET);
    expect(text).toContain('upstream_error');
    expect(openai.requests).toHaveLength(3);
    await eventually(() => spy.settled.length === 2);
    expect(spy.settled).toEqual([0, 0]);
  });

  it('connection reset → 502 upstream_unreachable; a 200 that is not JSON → 502 upstream_error', async () => {
    const err = await live.chat.completions.create({ model: 'up-reset', messages }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_unreachable');
    const garbage = await live.chat.completions
      .create({ model: 'up-garbage', messages })
      .catch((e: unknown) => e);
    expect((garbage as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((garbage as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
  });

  it('retries a transient failure before the first byte, then answers', async () => {
    const res = await live.chat.completions.create({ model: 'up-flaky', messages, stream: true });
    let text = '';
    for await (const c of res) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe(FAKE_TEXT);
    expect(openai.requests).toHaveLength(2);
  });

  it('falls back to the configured model when the first one keeps failing', async () => {
    const res = await live.chat.completions.create({ model: 'up-fallback', messages });
    expect(res.model).toBe('up-ok');
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(openai.requests.map((r) => r.body.model)).toEqual(['fail500', 'fail500', 'fail500', 'ok']);
  });

  it("the SDK's own retries on our 5xx reach us (x-should-retry honoured)", async () => {
    const retrying = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 1 });
    const err = await retrying.chat.completions
      .create({ model: 'up-500', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    // Two SDK attempts, each retried twice by Tessera before the first byte.
    expect(openai.requests).toHaveLength(6);
  });
});

describe("the openai SDK's retries on our 503", () => {
  it('waits for our retry-after, then tries again', async () => {
    const retrying = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 1 });
    const started = performance.now();
    const err = await retrying.chat.completions
      .create({ model: 'up-429', messages })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    // retry-after: 1 → the SDK waited about a second between its two attempts (each retried twice by Tessera).
    expect(performance.now() - started).toBeGreaterThan(900);
    expect(openai.requests).toHaveLength(6);
  });
});

describe('streams: keep-alive and client abort', () => {
  it('sends comment keep-alives while the model is silent', async () => {
    const text = await (await rawStream('up-slow')).text();
    expect(text).toMatch(/^: keep-alive$/m);
    expect(text).toContain('data: [DONE]');
  });

  it('a client that disconnects aborts the upstream call, and the tokens so far are settled', async () => {
    const controller = new AbortController();
    const stream = await live.chat.completions.create(
      { model: 'up-drip', messages, stream: true },
      { signal: controller.signal },
    );
    let received = 0;
    let abortedAt = 0;
    await (async () => {
      for await (const c of stream) {
        if (c.choices[0]?.delta.content) received += 1;
        if (received === 5) {
          abortedAt = performance.now();
          controller.abort();
        }
      }
    })().catch(() => undefined);
    await eventually(() => openai.aborts.length > 0);
    // The upstream connection closed promptly (the bound is loose for a shared machine; see BENCHMARKS.md).
    expect((openai.aborts.at(-1) ?? 0) - abortedAt).toBeLessThan(1_000);
    await eventually(() => spy.settled.length === 1);
    // Prompt tokens (Tessera's count) plus at least the five words the client saw.
    expect(spy.settled[0]).toBeGreaterThanOrEqual(5 + 5);
    expect(spy.settled[0]).toBeLessThan(100);
  });
});

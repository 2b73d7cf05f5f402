import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { libraryEncoder } from '../../src/modules/tokenizer';
import { catalogueEntry, eventually, spyOnAllowance, writeCatalogue } from '../helpers/chat-setup';
import {
  FAKE_EMBEDDING_DIMENSIONS,
  FAKE_EMBEDDING_TOKENS,
  type FakeUpstream,
  fakeEmbedding,
  startFakeAnthropic,
  startFakeOpenAi,
} from '../helpers/fake-upstreams';
import { createAccount, createAccountWithKey, createKey } from '../helpers/fixtures';
import { gql, settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let upstream: FakeUpstream;
let anthropic: FakeUpstream;
let testKey: string;
let liveKey: string;
let client: OpenAI;
let live: OpenAI;

/** An embedding model of the fake upstream: its upstream model name picks the fake's behaviour. */
function embeddingEntry(id: string, upstreamModel: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: 'embedding',
    provider: 'openai',
    upstream_model: upstreamModel,
    context_window: 64,
    dimensions: FAKE_EMBEDDING_DIMENSIONS,
    accepts_dimensions: true,
    description: `fake ${upstreamModel}`,
    created: 1767225600,
    ...extra,
  };
}

beforeAll(async () => {
  upstream = await startFakeOpenAi({ slowMs: 5_000 });
  anthropic = await startFakeAnthropic();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        catalogueEntry('up-ok', 'openai', 'ok'),
        catalogueEntry('claude-ok', 'anthropic', 'ok'),
        embeddingEntry('embed-ok', 'ok'),
        embeddingEntry('embed-fixed', 'ok', { accepts_dimensions: false }),
        embeddingEntry('embed-floats', 'floats'),
        embeddingEntry('embed-wrongdims', 'wrongdims'),
        embeddingEntry('embed-fewer', 'fewer'),
        embeddingEntry('embed-flaky', 'flaky'),
        embeddingEntry('embed-500', 'fail500'),
        embeddingEntry('embed-400', 'fail400'),
        embeddingEntry('embed-slow', 'slow'),
        embeddingEntry('embed-sim', 'sim-model', { provider: 'simulator', dimensions: 256 }),
        embeddingEntry('tessera-embed-small', 'text-embedding-3-small', {
          context_window: 8192,
          dimensions: 1536,
        }),
      ]),
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-upstream-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'ant-key',
      PLAN_PRO_RPM: '100000',
      UPSTREAM_RETRY_BACKOFF_MS: '10',
      MODEL_TIMEOUT_MS: '1500',
    },
  });
  testKey = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
  liveKey = (await createAccountWithKey(server, { plan: 'pro', kind: 'live' })).key.key;
  client = new OpenAI({ apiKey: testKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  live = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await anthropic?.close();
});

function post(body: unknown, key = testKey): Promise<Response> {
  return fetch(`${server.url}/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function norm(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) ** 2;
  return Math.sqrt(sum);
}

function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * (b[i] as number), 0) / (norm(a) * norm(b));
}

function decodeBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('POST /v1/embeddings with the simulator (test key, openai SDK)', () => {
  it('gives deterministic unit vectors of the model dimension, counted with the BPE', async () => {
    const texts = ['Glaciers carve fjords in Norway', 'Sourdough bread needs a starter'];
    const a = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: texts,
      encoding_format: 'float',
    });
    expect(a.object).toBe('list');
    expect(a.model).toBe('tessera-embed-small');
    expect(a.data.map((d) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    for (const d of a.data) {
      expect(d.embedding).toHaveLength(1536);
      expect(norm(d.embedding)).toBeCloseTo(1, 5);
    }
    const tokens = texts.reduce((sum, t) => sum + libraryEncoder().encode(t).length, 0);
    expect(a.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    // Same input, same vector; different inputs differ.
    const again = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: texts[0] as string,
      encoding_format: 'float',
    });
    expect(again.data[0]?.embedding).toEqual(a.data[0]?.embedding);
    expect(a.data[1]?.embedding).not.toEqual(a.data[0]?.embedding);
  });

  it('decodes base64 (the SDK default) to the same float32 numbers as float', async () => {
    const input = 'Tides follow the moon';
    // Without encoding_format the SDK asks for base64 and decodes it to numbers.
    const viaBase64 = await client.embeddings.create({ model: 'tessera-embed-small', input });
    const viaFloat = await client.embeddings.create({
      model: 'tessera-embed-small',
      input,
      encoding_format: 'float',
    });
    expect(viaBase64.data[0]?.embedding).toEqual(viaFloat.data[0]?.embedding);
    const raw = (await (
      await post({ model: 'tessera-embed-small', input, encoding_format: 'base64' })
    ).json()) as {
      data: { embedding: string }[];
    };
    expect(typeof raw.data[0]?.embedding).toBe('string');
    expect(decodeBase64(raw.data[0]?.embedding ?? '')).toEqual(viaFloat.data[0]?.embedding);
  });

  it('shortens with dimensions (a rescaled prefix), and embeds token ids', async () => {
    const input = 'Volcanoes erupt lava and ash';
    const full = await client.embeddings.create({
      model: 'tessera-embed-small',
      input,
      encoding_format: 'float',
    });
    const short = await client.embeddings.create({
      model: 'tessera-embed-small',
      input,
      dimensions: 64,
      encoding_format: 'float',
    });
    const vector = short.data[0]?.embedding ?? [];
    expect(vector).toHaveLength(64);
    expect(norm(vector)).toBeCloseTo(1, 5);
    expect(cosine(vector, full.data[0]?.embedding.slice(0, 64) ?? [])).toBeCloseTo(1, 5);

    const ids = libraryEncoder().encode(input);
    const tokens = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: [ids, ids.slice(0, 2)],
      encoding_format: 'float',
    });
    expect(tokens.data).toHaveLength(2);
    expect(tokens.usage.prompt_tokens).toBe(ids.length + 2);
    const flat = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: ids,
      encoding_format: 'float',
    });
    expect(flat.data).toHaveLength(1);
    expect(flat.data[0]?.embedding).toEqual(tokens.data[0]?.embedding);
  });

  it('sends a long answer in pieces that make the same JSON', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `document number ${i} about tides`);
    const res = await post({ model: 'tessera-embed-small', input: texts, encoding_format: 'float' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    const all = (await res.json()) as {
      object: string;
      model: string;
      data: { index: number; embedding: number[] }[];
    };
    expect(all.object).toBe('list');
    expect(all.model).toBe('tessera-embed-small');
    expect(all.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    const last = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: texts[299] as string,
      encoding_format: 'float',
    });
    expect(all.data[299]?.embedding).toEqual(last.data[0]?.embedding);
    const viaSdk = await client.embeddings.create({ model: 'tessera-embed-small', input: texts });
    expect(viaSdk.data[150]?.embedding).toEqual(all.data[150]?.embedding);
  });

  it('places texts that share words closer than unrelated ones', async () => {
    const { data } = await client.embeddings.create({
      model: 'tessera-embed-small',
      input: ['the cat sat on the mat', 'a cat sat on a mat', 'quarterly revenue grew in Europe'],
      encoding_format: 'float',
    });
    const [a, b, c] = data.map((d) => d.embedding) as [number[], number[], number[]];
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
  });

  it('lists embedding models with their dimensions in GET /v1/models', async () => {
    const list = await client.models.list();
    const model = list.data.find((m) => m.id === 'embed-sim') as unknown as Record<string, unknown>;
    expect(model).toMatchObject({ type: 'embedding', dimensions: 256, accepts_dimensions: true });
    expect(model).not.toHaveProperty('max_output_tokens');
    const chat = list.data.find((m) => m.id === 'up-ok') as unknown as Record<string, unknown>;
    expect(chat).toMatchObject({ type: 'chat', max_output_tokens: 2048 });
    const one = await client.models.retrieve('embed-sim');
    expect(one.id).toBe('embed-sim');
  });
});

describe('validation: clear 400s in OpenAI error body', () => {
  const cases: [string, unknown, string | null, RegExp][] = [
    ['missing input', { model: 'embed-sim' }, 'input', /Missing required parameter: 'input'/],
    ['missing model', { input: 'x' }, 'model', /Missing required parameter: 'model'/],
    ['empty string', { model: 'embed-sim', input: '' }, 'input', /non-empty string/],
    ['empty array', { model: 'embed-sim', input: [] }, 'input', /array of 0/],
    ['empty string in an array', { model: 'embed-sim', input: ['a', ''] }, 'input[1]', /non-empty string/],
    ['mixed array', { model: 'embed-sim', input: ['a', 3] }, 'input[1]', /non-empty string/],
    ['negative token id', { model: 'embed-sim', input: [1, -2] }, 'input[1]', /token id/],
    ['fractional token id', { model: 'embed-sim', input: [[1, 2.5]] }, 'input[0][1]', /token id/],
    ['empty token array', { model: 'embed-sim', input: [[1], []] }, 'input[1]', /array of token ids/],
    ['object input', { model: 'embed-sim', input: { text: 'x' } }, 'input', /received an object/],
    [
      'too many inputs',
      { model: 'embed-sim', input: Array(2049).fill('a') },
      'input',
      /array of 1 to 2048 .*received an array of 2049/,
    ],
    [
      'encoding_format',
      { model: 'embed-sim', input: 'x', encoding_format: 'hex' },
      'encoding_format',
      /'float' or 'base64'/,
    ],
    ['dimensions zero', { model: 'embed-sim', input: 'x', dimensions: 0 }, 'dimensions', /positive integer/],
    [
      'dimensions too many',
      { model: 'embed-sim', input: 'x', dimensions: 257 },
      'dimensions',
      /between 1 and 256/,
    ],
    [
      'dimensions not supported',
      { model: 'embed-fixed', input: 'x', dimensions: 8 },
      'dimensions',
      /does not support 'dimensions'/,
    ],
    [
      'input over the model limit',
      { model: 'embed-sim', input: ['ok', 'word '.repeat(100)] },
      'input[1]',
      /at most 64 tokens an input, but this input has 101 tokens/,
    ],
    [
      'token ids over the model limit',
      { model: 'embed-sim', input: Array(65).fill(1) },
      'input',
      /at most 64 tokens/,
    ],
    [
      'a chat model',
      { model: 'up-ok', input: 'x' },
      'model',
      /'up-ok' is a chat model, not an embedding model.*embed-sim/,
    ],
    [
      'an Anthropic model',
      { model: 'claude-ok', input: 'x' },
      'model',
      /'claude-ok' is served by Anthropic, which has no embeddings endpoint/,
    ],
    ['body not an object', ['x'], null, /JSON object with 'model' and 'input'/],
  ];
  for (const [name, body, param, message] of cases) {
    it(name, async () => {
      const res = await post(body);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: Record<string, unknown> };
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(error.type).toBe('invalid_request_error');
      expect(error.param).toBe(param);
      expect(String(error.message)).toMatch(message);
    });
  }

  it('404 for an unknown model, 401 without a key, and a chat call to an embedding model is a 400', async () => {
    const unknown = await post({ model: 'nope', input: 'x' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    expect((await post({ model: 'embed-sim', input: 'x' }, 'sk_test_nothing')).status).toBe(401);
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed-sim', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toMatch(
      /embedding model.*POST \/v1\/embeddings/,
    );
  });

  it('refuses a request over 300,000 tokens together, counting long texts off the event loop', async () => {
    // 61 inputs of 5,000 tokens each, each within the model's 8,192.
    const text = ' cat'.repeat(5_000);
    const res = await post({ model: 'tessera-embed-small', input: Array(61).fill(text) });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('max_tokens_per_request');
    expect(error.message).toMatch(/Requested 305000 tokens, max 300000 tokens per request/);
    const ok = await post({ model: 'tessera-embed-small', input: Array(4).fill(text), dimensions: 8 });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(4 * 5_000);
  });
});

describe('keys: scopes and models, as for chat', () => {
  it('a key without the embeddings scope, or limited to other models, gets 403', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const chatOnly = await createKey(server, account.id, 'test', 'chat only', { scopes: ['chat'] });
    const scoped = await post({ model: 'embed-sim', input: 'x' }, chatOnly.key);
    expect(scoped.status).toBe(403);
    expect(((await scoped.json()) as { error: { message: string } }).error.message).toMatch(
      /'embeddings' scope/,
    );
    const limited = await createKey(server, account.id, 'test', 'limited', {
      scopes: ['embeddings'],
      models: ['embed-ok'],
    });
    expect((await post({ model: 'embed-sim', input: 'x' }, limited.key)).status).toBe(403);
    expect((await post({ model: 'embed-ok', input: 'x' }, limited.key)).status).toBe(200);
  });
});

describe('relayed to an OpenAI-compatible upstream (live key)', () => {
  it('relays the request with the upstream model and key, and answers in the format asked', async () => {
    upstream.requests.length = 0;
    const res = await live.embeddings.create({
      model: 'embed-ok',
      input: ['first', 'second', 'third'],
      dimensions: 8,
      user: 'user-42',
      encoding_format: 'float',
    });
    const sent = upstream.requests.find((r) => r.path === '/v1/embeddings');
    expect(sent?.headers.authorization).toBe('Bearer sk-upstream-key');
    expect(sent?.body).toEqual({
      model: 'ok',
      input: ['first', 'second', 'third'],
      dimensions: 8,
      user: 'user-42',
      encoding_format: 'float',
    });
    // The fake answers in reverse order: put back by index.
    expect(res.data.map((d) => d.embedding)).toEqual([0, 1, 2].map((i) => fakeEmbedding(i, 8)));
    expect(res.model).toBe('embed-ok');
    // The upstream's usage wins over Tessera's count.
    expect(res.usage).toEqual({ prompt_tokens: FAKE_EMBEDDING_TOKENS, total_tokens: FAKE_EMBEDDING_TOKENS });
    const base64 = await live.embeddings.create({ model: 'embed-ok', input: 'one' });
    expect(base64.data[0]?.embedding).toEqual(fakeEmbedding(0, FAKE_EMBEDDING_DIMENSIONS));
  });

  it('converts an upstream that only answers floats to the base64 the client asked for', async () => {
    const res = await post({ model: 'embed-floats', input: ['a', 'b'], encoding_format: 'base64' }, liveKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tessera-provider')).toBe('openai');
    const body = (await res.json()) as { data: { embedding: string }[]; usage: { prompt_tokens: number } };
    expect(decodeBase64(body.data[1]?.embedding ?? '')).toEqual(fakeEmbedding(1, FAKE_EMBEDDING_DIMENSIONS));
    // No usage from the upstream: Tessera's own count.
    expect(body.usage.prompt_tokens).toBe(2);
  });

  it('retries a failing upstream, and maps broken answers and failures to clear errors', async () => {
    const flaky = await post({ model: 'embed-flaky', input: 'again' }, liveKey);
    expect(flaky.status).toBe(200);
    const cases: [string, number, RegExp][] = [
      ['embed-wrongdims', 502, /vectors of 17 dimensions where 16 were expected/],
      ['embed-fewer', 502, /1 embeddings for 2 inputs/],
      ['embed-500', 502, /failed with status 500/],
      ['embed-400', 400, /refused the request: failed with 400/],
    ];
    for (const [model, status, message] of cases) {
      const res = await post({ model, input: ['a', 'b'] }, liveKey);
      expect(res.status, model).toBe(status);
      const text = await res.text();
      expect(text).toMatch(message);
      expect(text).not.toContain('sk-upstream');
    }
    const slow = await post({ model: 'embed-slow', input: 'x' }, liveKey);
    expect(slow.status).toBe(500);
    expect(((await slow.json()) as { error: { code: string } }).error.code).toBe('model_timeout');
  });
});

describe('allowance, rate limits and metering, as for chat', () => {
  it('reserves the counted tokens before, settles the upstream usage after, and meters embeddings', async () => {
    const { account, key } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
    const spy = spyOnAllowance(server);
    const res = await post({ model: 'embed-ok', input: ['one two three', 'four'] }, key.key);
    expect(res.status).toBe(200);
    const counted = libraryEncoder().encode('one two three').length + libraryEncoder().encode('four').length;
    await eventually(() => spy.settled.length === 1);
    expect(spy.reserved).toEqual([counted]);
    expect(spy.settled).toEqual([FAKE_EMBEDDING_TOKENS]);
    // A failed call that never reached the model settles to 0.
    expect((await post({ model: 'embed-400', input: 'x' }, key.key)).status).toBe(400);
    await eventually(() => spy.settled.length === 2);
    expect(spy.settled[1]).toBe(0);
    // Test keys never touch the allowance.
    expect((await post({ model: 'embed-sim', input: 'x' })).status).toBe(200);
    expect(spy.reserved).toHaveLength(2);

    const rows = () =>
      server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    await settleUsage(server, async () => (await rows()).length, 2);
    const events = await rows();
    const ok = events.find((e) => e.status === 200);
    expect(ok).toMatchObject({
      route: '/v1/embeddings',
      model: 'embed-ok',
      promptTokens: FAKE_EMBEDDING_TOKENS,
    });
    const usage = await gql<{
      usage: { endpoints: { path: string; requests: number; tokens: number | null }[] };
    }>(server, { key: key.key }, '{ usage(period: LAST_24H) { endpoints { path requests tokens } } }');
    expect(usage.data?.usage.endpoints).toContainEqual({
      path: '/v1/embeddings',
      requests: 2,
      tokens: FAKE_EMBEDDING_TOKENS,
    });
  });

  it('refuses a call that does not fit the allowance with 429 insufficient_quota, before the upstream', async () => {
    const account = await createAccount(server, { plan: 'enterprise', customMonthlyTokens: 10 });
    const key = await createKey(server, account.id, 'live');
    upstream.requests.length = 0;
    const res = await post(
      { model: 'embed-ok', input: 'one two three four five six seven eight nine ten eleven' },
      key.key,
    );
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    expect(upstream.requests).toHaveLength(0);
    expect((await post({ model: 'embed-ok', input: 'one' }, key.key)).status).toBe(200);
  });

  it("counts embeddings against the plan's requests per minute", async () => {
    const account = await createAccount(server, { plan: 'enterprise', customRequestsPerMinute: 2 });
    const key = await createKey(server, account.id, 'test');
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post({ model: 'embed-sim', input: 'x' }, key.key)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('a client that leaves aborts the upstream call at once; metered 499 with its prompt', async () => {
    const { account, key } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
    const aborts = upstream.aborts.length;
    const input = 'patience wears thin';
    const controller = new AbortController();
    const pending = fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'embed-slow', input }),
      signal: controller.signal,
    }).catch(() => undefined);
    await eventually(() => upstream.requests.some((r) => r.body.input === input));
    controller.abort();
    await pending;
    await eventually(() => upstream.aborts.length > aborts);
    const rows = () =>
      server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    await settleUsage(server, async () => (await rows()).length, 1);
    expect((await rows())[0]).toMatchObject({
      status: 499,
      route: '/v1/embeddings',
      promptTokens: libraryEncoder().encode(input).length,
    });
  });
});

describe('GraphQL', () => {
  it('lists embedding models with their type and dimensions', async () => {
    const r = await gql<{ models: Record<string, unknown>[] }>(
      server,
      { key: testKey },
      '{ models { id type dimensions maxOutputTokens } }',
    );
    expect(r.data?.models).toContainEqual({
      id: 'embed-sim',
      type: 'EMBEDDING',
      dimensions: 256,
      maxOutputTokens: null,
    });
    expect(r.data?.models).toContainEqual({
      id: 'up-ok',
      type: 'CHAT',
      dimensions: null,
      maxOutputTokens: 2048,
    });
  });
});

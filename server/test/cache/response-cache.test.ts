/**
 * The response cache through the real server and the openai SDK, once with answers kept in process and once in
 * Redis (TEST_REDIS_URL): off unless the key opts in; a miss, then a hit with the same answer, a fresh id and
 * no model call; a streamed hit replayed as a live stream's events, `include_usage` as the hit asks; never
 * across organisations; gone after the key's TTL; `x-tessera-cache` per request; a hit metered as a hit, cost
 * 0, the money saved in GraphQL's usage summary.
 */
import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { metricValue } from '../helpers/usage';

const REDIS_URL = process.env.TEST_REDIS_URL;

/** Per million tokens: a call costs prompt × 10 + completion × 20 micro-units. */
const PRICE = { input: 10, output: 20 };
const MODEL = 'cached';
const messages = [{ role: 'user' as const, content: 'Tell me about rivers and deltas' }];

const SUMMARY = /* GraphQL */ `
  query { usage(period: LAST_24H) { summary { totalRequests totalCostMicros
    cache { hits misses hitRate savedMicros } } } }
`;

interface Summary {
  usage: {
    summary: {
      totalRequests: number;
      totalCostMicros: number;
      cache: { hits: number; misses: number; hitRate: number | null; savedMicros: number };
    };
  };
}

function sdk(server: TestServer, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

/** The events of a stream read raw: each `data:` payload, `[DONE]` included. */
async function events(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

function post(server: TestServer, key: string, body: Record<string, unknown>, headers = {}) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: 40, ...body }),
  });
}

function cacheSuite(store: 'memory' | 'redis') {
  let server: TestServer;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    server = await startTestServer({
      env: {
        MODELS_FILE: writeCatalogue([
          catalogueEntry(MODEL, 'openai', 'ok', { pricing: [{ from: '2020-01-01', ...PRICE }] }),
        ]),
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        OPENAI_API_KEY: 'sk-upstream-secret',
        SIMULATOR_TOKEN_DELAY_MS: '0',
        PLAN_FREE_RPM: '100000',
        ...(store === 'redis' && REDIS_URL ? { REDIS_URL } : {}),
      },
    });
    expect(server.services.responseCache.storeKind).toBe(store);
    if (store === 'redis') {
      // The store's own connection is made at start-up; the first lookups would otherwise be misses.
      const deadline = Date.now() + 5_000;
      while (!server.services.responseCache.ready() && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  async function cachedKey(kind: 'test' | 'live' = 'test', ttl = 3600, accountId?: string) {
    const account = accountId ?? (await createAccount(server)).id;
    const key = await createKey(server, account, kind, 'cached', { cacheTtlSeconds: ttl });
    return { accountId: account, key: key.key, id: key.id };
  }

  async function usageRows(accountId: string) {
    await server.services.usage.flush();
    return server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.accountId, accountId), eq(usageEvents.route, '/v1/chat/completions')))
      .orderBy(usageEvents.occurredAt);
  }

  it('is off by default: no header, every request answered by the model', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id, 'live', 'plain');
    const client = sdk(server, key.key);
    for (let i = 0; i < 2; i++) {
      const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      expect(response.headers.get('x-tessera-cache')).toBeNull();
    }
    expect(upstream.requests).toHaveLength(2);
    expect((await usageRows(account.id)).map((r) => r.cache)).toEqual([null, null]);
  });

  it('a miss, then a hit: the same answer with a fresh id, no model call, metered as a hit at cost 0', async () => {
    const { key, accountId } = await cachedKey('live');
    const client = sdk(server, key);
    const first = await client.chat.completions
      .create({ model: MODEL, messages, max_tokens: 40 })
      .withResponse();
    expect(first.response.headers.get('x-tessera-cache')).toBe('miss');
    const second = await client.chat.completions
      .create({ model: MODEL, messages, max_tokens: 40, user: 'someone-else' })
      .withResponse();
    expect(second.response.headers.get('x-tessera-cache')).toBe('hit');
    expect(second.response.headers.get('x-tessera-provider')).toBe(
      first.response.headers.get('x-tessera-provider'),
    );
    expect(upstream.requests).toHaveLength(1);
    expect(second.data.id).not.toBe(first.data.id);
    expect(second.data.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
    expect(second.data.choices).toEqual(first.data.choices);
    expect(second.data.usage).toEqual(first.data.usage);
    expect(second.data.model).toBe(MODEL);
    // A sampling field is part of the key: another temperature is another request.
    const other = await client.chat.completions
      .create({ model: MODEL, messages, max_tokens: 40, temperature: 0.3 })
      .withResponse();
    expect(other.response.headers.get('x-tessera-cache')).toBe('miss');
    expect(upstream.requests).toHaveLength(2);

    const usage = first.data.usage;
    if (!usage) throw new Error('no usage');
    const cost = usage.prompt_tokens * PRICE.input + usage.completion_tokens * PRICE.output;
    const rows = await usageRows(accountId);
    expect(
      rows.map((r) => [r.cache, r.costMicros, r.savedMicros, r.promptTokens, r.completionTokens]),
    ).toEqual([
      ['miss', cost, null, usage.prompt_tokens, usage.completion_tokens],
      ['hit', 0, cost, 0, 0],
      ['miss', cost, null, usage.prompt_tokens, usage.completion_tokens],
    ]);
    const summary = await gql<Summary>(server, { key }, SUMMARY);
    expect(summary.errors).toBeUndefined();
    expect(summary.data?.usage.summary).toEqual({
      totalRequests: 3,
      totalCostMicros: 2 * cost,
      cache: { hits: 1, misses: 2, hitRate: 1 / 3, savedMicros: cost },
    });
  });

  it('replays a streamed answer as a stream of the same shape, include_usage as the hit asks', async () => {
    const { key } = await cachedKey('live');
    const client = sdk(server, key);
    const live = await client.chat.completions
      .create({
        model: MODEL,
        messages,
        max_tokens: 40,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    expect(live.response.headers.get('x-tessera-cache')).toBe('miss');
    const liveChunks = [];
    for await (const chunk of live.data) liveChunks.push(chunk);
    const text = (chunks: OpenAI.ChatCompletionChunk[]) =>
      chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const usageOf = (chunks: OpenAI.ChatCompletionChunk[]) => chunks.find((c) => c.usage)?.usage;

    // Streamed, with the usage: the same text, the same usage, one id and created on every chunk.
    const hit = await post(server, key, { stream: true, stream_options: { include_usage: true } });
    expect(hit.headers.get('x-tessera-cache')).toBe('hit');
    expect(hit.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const raw = await events(hit);
    expect(raw.at(-1)).toBe('[DONE]');
    const chunks = raw.slice(0, -1).map((e) => JSON.parse(e) as OpenAI.ChatCompletionChunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.id).not.toBe(liveChunks[0]?.id);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === MODEL)).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(text(chunks)).toBe(text(liveChunks));
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(usageOf(chunks)).toEqual(usageOf(liveChunks));

    // Through the SDK's stream helper, without the usage: no usage chunk, a whole final message.
    const replay = client.chat.completions.stream({ model: MODEL, messages, max_tokens: 40 });
    const final = await replay.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(text(liveChunks));
    expect(final.choices[0]?.finish_reason).toBe('stop');
    // Non-streamed from the streamed answer: the same text and usage.
    const json = await client.chat.completions.create({ model: MODEL, messages, max_tokens: 40 });
    expect(json.choices[0]?.message.content).toBe(text(liveChunks));
    expect(json.usage).toEqual(usageOf(liveChunks));
    expect(upstream.requests).toHaveLength(1);
  });

  it('stores a stream that asked for no usage, and a JSON answer replays as a stream', async () => {
    const { key } = await cachedKey();
    const body = { messages: [{ role: 'user', content: 'Streams without usage' }] };
    const miss = await post(server, key, { ...body, stream: true });
    expect(miss.headers.get('x-tessera-cache')).toBe('miss');
    const missEvents = await events(miss);
    // Stored once the call's usage is known, just after the stream ended.
    let hit: Response | undefined;
    for (let i = 0; i < 50; i++) {
      hit = await post(server, key, { ...body, stream: true });
      if (hit.headers.get('x-tessera-cache') === 'hit') break;
      await hit.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(hit?.headers.get('x-tessera-cache')).toBe('hit');
    const hitEvents = hit ? await events(hit) : [];
    const content = (list: string[]) =>
      list
        .slice(0, -1)
        .map((e) => (JSON.parse(e) as OpenAI.ChatCompletionChunk).choices[0]?.delta.content ?? '')
        .join('');
    expect(content(hitEvents)).toBe(content(missEvents));
    expect(hitEvents.some((e) => e !== '[DONE]' && 'usage' in JSON.parse(e))).toBe(false);

    const other = { messages: [{ role: 'user', content: 'A JSON answer first' }] };
    const json = (await (await post(server, key, other)).json()) as OpenAI.ChatCompletion;
    const streamed = await post(server, key, { ...other, stream: true });
    expect(streamed.headers.get('x-tessera-cache')).toBe('hit');
    expect(content(await events(streamed))).toBe(json.choices[0]?.message.content);
  });

  it('never answers one organisation from another’s cache', async () => {
    const a = await cachedKey('live');
    const b = await cachedKey('live');
    const first = await post(server, a.key, {});
    expect(first.headers.get('x-tessera-cache')).toBe('miss');
    await first.arrayBuffer();
    const other = await post(server, b.key, {});
    expect(other.headers.get('x-tessera-cache')).toBe('miss');
    await other.arrayBuffer();
    expect(upstream.requests).toHaveLength(2);
    // Another key of the same organisation with the cache on shares its answers.
    const sibling = await cachedKey('live', 3600, a.accountId);
    const again = await post(server, sibling.key, {});
    expect(again.headers.get('x-tessera-cache')).toBe('hit');
    await again.arrayBuffer();
    // A test key of that organisation is answered by the simulator: another entry.
    const test = await cachedKey('test', 3600, a.accountId);
    const simulated = await post(server, test.key, {});
    expect(simulated.headers.get('x-tessera-cache')).toBe('miss');
    await simulated.arrayBuffer();
  });

  it('forgets an answer after the key’s TTL', async () => {
    const { key } = await cachedKey('live', 1);
    const ask = async () => {
      const res = await post(server, key, { messages: [{ role: 'user', content: 'Short-lived answers' }] });
      await res.arrayBuffer();
      return res.headers.get('x-tessera-cache');
    };
    expect(await ask()).toBe('miss');
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await ask()).toBe('miss');
    expect(upstream.requests).toHaveLength(2);
  });

  it('x-tessera-cache per request: no-cache refreshes, no-store bypasses, anything else is a 400', async () => {
    const { key } = await cachedKey('live');
    const body = { messages: [{ role: 'user', content: 'Directives' }] };
    const metrics = async () => {
      const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
      return ['hits', 'misses'].map((n) => metricValue(text, `tessera_response_cache_${n}_total`));
    };
    const [hitsBefore = 0, missesBefore = 0] = await metrics();
    const noStore = await post(server, key, body, { 'x-tessera-cache': 'no-store' });
    expect(noStore.status).toBe(200);
    expect(noStore.headers.get('x-tessera-cache')).toBeNull();
    await noStore.arrayBuffer();
    const fresh = await post(server, key, body, { 'x-tessera-cache': 'No-Cache' });
    expect(fresh.headers.get('x-tessera-cache')).toBe('miss');
    await fresh.arrayBuffer();
    const hit = await post(server, key, body);
    expect(hit.headers.get('x-tessera-cache')).toBe('hit');
    await hit.arrayBuffer();
    expect(upstream.requests).toHaveLength(2);
    expect(await metrics()).toEqual([hitsBefore + 1, missesBefore + 1]);
    const bad = await post(server, key, body, { 'x-tessera-cache': 'forever' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        message: "The x-tessera-cache header must be one of no-cache, no-store; got 'forever'.",
        type: 'invalid_request_error',
        param: 'x-tessera-cache',
        code: 'invalid_value',
      },
    });
  });
}

describe('the response cache in process (no Redis)', () => cacheSuite('memory'));
describe.skipIf(!REDIS_URL)('the response cache in Redis', () => cacheSuite('redis'));

describe('the response cache with its Redis unreachable', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      // Nothing listens on port 1: every lookup is a miss and nothing is stored, never an error.
      env: { REDIS_URL: 'redis://127.0.0.1:1', SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000' },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers every request from the model, as a miss', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id, 'test', 'cached', { cacheTtlSeconds: 60 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tessera-fast-4k', messages, stream: i === 1 }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-tessera-cache')).toBe('miss');
      expect(await res.text()).toContain(i === 1 ? 'data: [DONE]' : '"chat.completion"');
    }
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    expect(metricValue(text, 'tessera_response_cache_misses_total')).toBe(2);
    expect(metricValue(text, 'tessera_response_cache_store_errors_total')).toBeGreaterThan(0);
  });
});

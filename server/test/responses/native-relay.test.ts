/**
 * POST /v1/responses relayed to upstreams that speak the Responses API themselves (`responses_api: true`):
 * through the real server and the openai SDK (`responses.create`, `responses.stream`), against fake upstreams on
 * loopback: the request relayed as it came, the answer and the events passed through, the usage of
 * `response.completed` metered and settled, an aborted stream billed for what it sent, failover across
 * deployments before the first byte only, and translation to chat completions wherever an upstream does not.
 */
import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { catalogueEntry, eventually, spyOnAllowance, writeCatalogue } from '../helpers/chat-setup';
import { type FakeResponsesUpstream, RESPONSES_USAGE, startFakeResponses } from '../helpers/fake-responses';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let direct: FakeResponsesUpstream;
let east: FakeResponsesUpstream;
let west: FakeResponsesUpstream;
let plain: FakeResponsesUpstream;
let fakes: FakeResponsesUpstream[];
let server: TestServer;
let live: OpenAI;
let liveKey: string;
let testKey: string;
let accountId: string;

/** 1 per million input tokens, 2 per million output: 11 + 7 tokens cost 11 + 14 micro-units. */
const PRICE = { from: '2021-01-01', input: 1, output: 2 };

function deployment(fake: FakeResponsesUpstream, responsesApi: boolean) {
  return {
    name: fake.name,
    base_url: fake.url,
    api_key_env: `${fake.name.toUpperCase()}_API_KEY`,
    upstream_model: `${fake.name}-model`,
    ...(responsesApi && { responses_api: true }),
  };
}

beforeAll(async () => {
  fakes = await Promise.all(['direct', 'east', 'west', 'plain'].map(startFakeResponses));
  [direct, east, west, plain] = fakes as [
    FakeResponsesUpstream,
    FakeResponsesUpstream,
    FakeResponsesUpstream,
    FakeResponsesUpstream,
  ];
  const noBreaker = { breaker: { failures: 1_000, min_requests: 1_000 } };
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        catalogueEntry('native', 'openai', 'native-upstream', { responses_api: true, pricing: [PRICE] }),
        catalogueEntry('translated', 'openai', 'chat-upstream'),
        catalogueEntry('routed-native', 'openai', 'unused', {
          deployments: [deployment(east, true), deployment(west, true)],
          routing: noBreaker,
        }),
        catalogueEntry('routed-mixed', 'openai', 'unused', {
          deployments: [deployment(east, true), deployment(plain, false)],
          routing: noBreaker,
        }),
      ]),
      OPENAI_BASE_URL: direct.url,
      OPENAI_API_KEY: 'sk-direct-upstream',
      EAST_API_KEY: 'key-east',
      WEST_API_KEY: 'key-west',
      PLAIN_API_KEY: 'key-plain',
      PLAN_PRO_RPM: '100000',
      MODEL_TIMEOUT_MS: '5000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  accountId = created.account.id;
  liveKey = created.key.key;
  live = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  testKey = (await createKey(server, accountId, 'test')).key;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all((fakes ?? []).map((f) => f.close()));
});

beforeEach(() => {
  for (const f of fakes) {
    f.mode = 'ok';
    f.calls.length = 0;
  }
});

/** The stored usage event of a request, once the buffer has been written. */
async function eventOf(requestId: string | null) {
  for (let i = 0; i < 50; i++) {
    await server.services.usage.flush();
    const [row] = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.accountId, accountId), eq(usageEvents.requestId, String(requestId))));
    if (row) return row;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no usage event for ${requestId}`);
}

describe('a model whose upstream speaks the Responses API', () => {
  it('relays responses.create as it came, answers the upstream response under its own model id, and meters its usage', async () => {
    const spy = spyOnAllowance(server);
    const { data, response } = await live.responses
      .create({
        model: 'native',
        instructions: 'Be brief.',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }],
        max_output_tokens: 200,
        temperature: 0.3,
        metadata: { ticket: 'T-1' },
      })
      .withResponse();
    expect(data.id).toBe('resp_direct');
    expect(data.model).toBe('native');
    expect(data.output_text).toBe('relayed by direct');
    expect(data.usage).toEqual(RESPONSES_USAGE);
    expect(response.headers.get('x-tessera-provider')).toBe('openai');

    // One call, to the upstream's /responses, with the request as the client sent it: the upstream's model
    // name, the cap, nothing stored in the operator's account, and the upstream's own key.
    expect(direct.calls.map((c) => c.path)).toEqual(['/v1/responses']);
    const sent = direct.calls[0];
    expect(sent?.authorization).toBe('Bearer sk-direct-upstream');
    expect(sent?.body).toEqual({
      model: 'native-upstream',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }],
      max_output_tokens: 200,
      temperature: 0.3,
      metadata: { ticket: 'T-1' },
      store: false,
      stream: false,
    });

    await eventually(() => spy.settled.length === 1);
    expect(spy.reserved[0]).toBeGreaterThan(200);
    expect(spy.settled).toEqual([RESPONSES_USAGE.total_tokens]);
    const row = await eventOf(response.headers.get('x-request-id'));
    expect(row).toMatchObject({
      route: '/v1/responses',
      status: 200,
      model: 'native',
      deployment: 'openai',
      promptTokens: 11,
      completionTokens: 7,
      costMicros: 11 + 14,
    });
  });

  it('relays responses.stream event for event, numbered as the upstream numbered them', async () => {
    const spy = spyOnAllowance(server);
    const stream = live.responses.stream({ model: 'native', input: 'Say hello' });
    const types: string[] = [];
    const sequence: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
    }
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('relayed by direct');
    expect(final.model).toBe('native');
    expect(final.usage).toEqual(RESPONSES_USAGE);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sequence).toEqual(types.map((_, i) => i));
    expect(direct.calls.map((c) => [c.path, c.body.stream])).toEqual([['/v1/responses', true]]);
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([RESPONSES_USAGE.total_tokens]);
  });

  it('bills a stream the client abandons for what it was sent', async () => {
    direct.mode = 'drip';
    const spy = spyOnAllowance(server);
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'native', input: 'Tell me a long story', stream: true }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while ((text.match(/output_text\.delta/g) ?? []).length < 4) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    await eventually(() => spy.settled.length === 1, 5_000);
    // No usage came from the upstream: the prompt as counted, and the deltas sent, are billed.
    const row = await eventOf(requestId);
    expect(row.status).toBe(499);
    expect(row.promptTokens).toBeGreaterThan(0);
    expect(row.completionTokens).toBeGreaterThanOrEqual(4);
    expect(spy.settled[0]).toBe((row.promptTokens ?? 0) + (row.completionTokens ?? 0));
  });

  it('refuses what the relay must not carry, as the translation does (store, previous_response_id)', async () => {
    await expect(
      live.responses.create({ model: 'native', input: 'Hi', previous_response_id: 'resp_other_tenant' }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(live.responses.create({ model: 'native', input: 'Hi', store: true })).rejects.toMatchObject({
      status: 400,
    });
    expect(direct.calls).toEqual([]);
  });
});

describe('a routed model whose deployments all speak the Responses API', () => {
  it('fails over to the next deployment before the first byte', async () => {
    east.mode = 'fail';
    const { data, response } = await live.responses
      .create({ model: 'routed-native', input: 'Hi' })
      .withResponse();
    expect(data.output_text).toBe('relayed by west');
    expect(data.model).toBe('routed-native');
    expect(response.headers.get('x-tessera-provider')).toBe('west');
    expect(east.calls.map((c) => [c.path, c.body.model])).toEqual([['/v1/responses', 'east-model']]);
    expect(west.calls.map((c) => [c.path, c.authorization])).toEqual([['/v1/responses', 'Bearer key-west']]);
    expect((await eventOf(response.headers.get('x-request-id'))).deployment).toBe('west');
  });

  it('fails over a stream accepted and then lost before its first event', async () => {
    east.mode = 'drop';
    const stream = live.responses.stream({ model: 'routed-native', input: 'Hi' });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('relayed by west');
    expect([east.calls.length, west.calls.length]).toEqual([1, 1]);
  });

  it('never fails over once an event was sent: the stream ends with error and response.failed', async () => {
    east.mode = 'break';
    const stream = await live.responses.create({ model: 'routed-native', input: 'Hi', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 5)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
    ]);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    const failed = events.at(-1);
    if (failed?.type !== 'response.failed') throw new Error('expected response.failed last');
    expect(failed.response).toMatchObject({ status: 'failed', model: 'routed-native' });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(west.calls).toEqual([]);
  });
});

describe('translation stays the default', () => {
  it('for a model whose upstream is not said to speak it, a mixed routed model, and test keys', async () => {
    const translated = await live.responses.create({ model: 'translated', input: 'Hi' });
    expect(translated.output_text).toBe('chat from direct');
    expect(direct.calls.map((c) => c.path)).toEqual(['/v1/chat/completions']);

    const mixed = await live.responses.create({ model: 'routed-mixed', input: 'Hi' });
    expect(mixed.output_text).toBe('chat from east');
    expect(east.calls.map((c) => c.path)).toEqual(['/v1/chat/completions']);

    const simulated = await new OpenAI({
      apiKey: testKey,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    }).responses.create({ model: 'native', input: 'Hi' });
    expect(simulated.status).toBe('completed');
    expect(direct.calls).toHaveLength(1);
    expect(plain.calls).toEqual([]);
  });
});

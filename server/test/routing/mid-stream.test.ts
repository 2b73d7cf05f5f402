/**
 * A stream whose upstream fails after the stream opened (its 200 and first chunk already sent): through the real
 * server and the openai SDK, with fake upstreams that cut the connection mid-answer or report the failure in their
 * own events. The client gets the error in the stream; the request is metered as that error (its status and
 * type in the usage event, so the dashboard's errors list it), never as the 200 the stream opened with, and it is
 * billed for what was sent: the prompt and the output so far, in tokens, in money and in the allowance.
 */
import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { countTokens } from '../../src/modules/tokenizer';
import { catalogueEntry, eventually, spyOnAllowance, writeCatalogue } from '../helpers/chat-setup';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { type FakeResponsesUpstream, startFakeResponses } from '../helpers/fake-responses';
import { createAccountWithKey } from '../helpers/fixtures';
import { gql, sessionCookie } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { keysOf, messages, resetFakes } from './setup';

/** Per million tokens: each input token costs 1,000 micro-units, each output token 2,000. */
const PRICE = { from: '2021-01-01', input: 1_000, output: 2_000 };
const noBreaker = { breaker: { failures: 1_000, min_requests: 1_000 } };

let east: FakeDeployment;
let west: FakeDeployment;
let north: FakeResponsesUpstream;
let south: FakeResponsesUpstream;
let server: TestServer;
let live: OpenAI;
let liveKey: string;
let accountId: string;

beforeAll(async () => {
  [east, west] = (await Promise.all(['east', 'west'].map(startFakeDeployment))) as [
    FakeDeployment,
    FakeDeployment,
  ];
  [north, south] = (await Promise.all(['north', 'south'].map(startFakeResponses))) as [
    FakeResponsesUpstream,
    FakeResponsesUpstream,
  ];
  const deployment = (fake: { name: string; url: string }, extra: Record<string, unknown> = {}) => ({
    name: fake.name,
    base_url: fake.url,
    api_key_env: `${fake.name.toUpperCase()}_API_KEY`,
    upstream_model: `${fake.name}-model`,
    ...extra,
  });
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        catalogueEntry('routed', 'openai', 'unused', {
          pricing: [PRICE],
          deployments: [deployment(east), deployment(west)],
          routing: noBreaker,
        }),
        catalogueEntry('native', 'openai', 'unused', {
          pricing: [PRICE],
          deployments: [
            deployment(north, { responses_api: true }),
            deployment(south, { responses_api: true }),
          ],
          routing: noBreaker,
        }),
      ]),
      ...keysOf([east, west]),
      NORTH_API_KEY: 'key-north',
      SOUTH_API_KEY: 'key-south',
      PLAN_PRO_RPM: '100000',
      MODEL_TIMEOUT_MS: '5000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  accountId = created.account.id;
  liveKey = created.key.key;
  live = new OpenAI({ apiKey: liveKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([east, west, north, south].map((f) => f?.close()));
});

beforeEach(() => {
  resetFakes([east, west]);
  for (const f of [north, south]) {
    f.mode = 'ok';
    f.calls.length = 0;
  }
});

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

/** The dashboard's recent error of this request (GraphQL, as the overview reads it). */
async function dashboardError(requestId: string | null) {
  const answer = await gql<{
    usage: {
      recentErrors: {
        edges: {
          node: { requestId: string; status: number; code: string | null; deployment: string | null };
        }[];
      };
    };
  }>(
    server,
    { cookie: await sessionCookie(server, accountId) },
    `query { usage(period: LAST_24H) {
      recentErrors(first: 100) { edges { node { requestId status code deployment } } }
    } }`,
  );
  expect(answer.errors).toBeUndefined();
  return answer.data?.usage.recentErrors.edges.find((e) => e.node.requestId === requestId)?.node;
}

/** What the call must be billed: its tokens at the model's price. */
function costOf(row: { promptTokens: number | null; completionTokens: number | null }): number {
  return (row.promptTokens ?? 0) * PRICE.input + (row.completionTokens ?? 0) * PRICE.output;
}

/** The call is billed its tokens at the price, and the allowance settles the same total. */
async function expectBilledForWhatWasSent(
  row: { promptTokens: number | null; completionTokens: number | null; costMicros: number | null },
  spy: ReturnType<typeof spyOnAllowance>,
): Promise<void> {
  expect(row.costMicros).toBe(costOf(row));
  await eventually(() => spy.settled.length === 1, 5_000);
  expect(spy.settled[0]).toBe((row.promptTokens ?? 0) + (row.completionTokens ?? 0));
}

describe('an upstream that fails after the stream opened', () => {
  it('chat: the SDK gets the error mid-stream; metered as 502 upstream_error, billed for what was sent', async () => {
    east.mode = 'break-mid-stream';
    const spy = spyOnAllowance(server);
    const { data: stream, response } = await live.chat.completions
      .create({ model: 'routed', messages, stream: true })
      .withResponse();
    expect(response.status).toBe(200);
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain("The upstream provider 'east' failed mid-answer");
    expect(text).toBe('answered');
    expect(west.calls).toHaveLength(0);

    const requestId = response.headers.get('x-request-id');
    const row = await eventOf(requestId);
    expect(row).toMatchObject({
      status: 502,
      errorType: 'server_error',
      errorCode: 'upstream_error',
      deployment: 'east',
      model: 'routed',
    });
    expect(row.errorMessage).toContain('failed mid-answer');
    // No usage came from the upstream: the prompt as counted and the one token sent ("answered").
    expect(row.promptTokens).toBeGreaterThan(0);
    expect(row.completionTokens).toBe(1);
    await expectBilledForWhatWasSent(row, spy);
    expect(await dashboardError(requestId)).toMatchObject({
      status: 502,
      code: 'upstream_error',
      deployment: 'east',
    });
  });

  it('chat: a stream that ends well is still metered as 200', async () => {
    const { data: stream, response } = await live.chat.completions
      .create({ model: 'routed', messages, stream: true })
      .withResponse();
    for await (const _ of stream) {
      // read it all
    }
    const row = await eventOf(response.headers.get('x-request-id'));
    expect(row).toMatchObject({ status: 200, errorType: null, completionTokens: 3, promptTokens: 9 });
  });

  it('the Responses relay: a stream cut after its first delta is metered as 502, billed for the delta sent', async () => {
    north.mode = 'break';
    const spy = spyOnAllowance(server);
    const { data: stream, response } = await live.responses
      .create({ model: 'native', input: 'Hi', stream: true })
      .withResponse();
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(south.calls).toEqual([]);

    const requestId = response.headers.get('x-request-id');
    const row = await eventOf(requestId);
    expect(row).toMatchObject({
      status: 502,
      errorType: 'server_error',
      errorCode: 'upstream_error',
      deployment: 'north',
      model: 'native',
    });
    // "relayed " was sent: its tokens, and the prompt as counted.
    expect(row.promptTokens).toBeGreaterThan(0);
    expect(row.completionTokens).toBe(countTokens('relayed '));
    await expectBilledForWhatWasSent(row, spy);
    expect(await dashboardError(requestId)).toMatchObject({ status: 502, deployment: 'north' });
  });

  it('the Responses relay: an upstream reporting its own failure in its events is metered as that failure', async () => {
    north.mode = 'fail-in-stream';
    const { data: stream, response } = await live.responses
      .create({ model: 'native', input: 'Hi', stream: true })
      .withResponse();
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    // Relayed as the upstream sent them, nothing added (its `error` event ends the stream).
    expect(events.map((e) => e.type).slice(-2)).toEqual(['response.output_text.delta', 'error']);
    const row = await eventOf(response.headers.get('x-request-id'));
    expect(row).toMatchObject({ status: 502, errorType: 'server_error', errorCode: 'server_error' });
    expect(row.errorMessage).toBe("The upstream provider 'north' failed the response: The model crashed.");
    expect(row.completionTokens).toBe(countTokens('relayed '));
    expect(row.costMicros).toBe(costOf(row));
  });
});

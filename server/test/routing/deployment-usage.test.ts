/**
 * Per-deployment traffic (the dashboard's Deployments panel): calls to a routed model through the real server
 * and the openai SDK, then GraphQL `usage { deployments }` read back per model and deployment (requests, errors,
 * latency percentiles, tokens, cost), for the caller's own account only, narrowed by mode, key and endpoint.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueEntry, writeCatalogue } from '../helpers/chat-setup';
import { type FakeDeployment, startFakeDeployment } from '../helpers/fake-deployments';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { gql, sessionCookie } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { client, keysOf, keyVariable, messages } from './setup';

interface Row {
  model: string;
  deployment: string | null;
  requests: number;
  errors: number;
  successRate: number;
  averageLatencyMs: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  tokens: number | null;
  costMicros: number | null;
}

const QUERY = /* GraphQL */ `
  query Deployments($mode: KeyMode, $keyId: ID, $method: String, $path: String) {
    usage(period: LAST_1H, mode: $mode, keyId: $keyId, method: $method, path: $path) {
      deployments {
        rows {
          model deployment requests errors successRate averageLatencyMs p50LatencyMs p95LatencyMs tokens costMicros
        }
        truncated
      }
    }
  }
`;

let east: FakeDeployment;
let west: FakeDeployment;
let server: TestServer;
let live: OpenAI;
let liveKeyId: string;
let accountId: string;
let otherKey: string;

/** 1 per million input tokens and 2 per million output: a fake's 9 + 3 tokens cost 9 + 6 micro-units. */
const PRICE = { from: '2021-01-01', input: 1, output: 2 };
const CALL_MICROS = 15;

async function rows(
  auth: { key: string } | { cookie: string },
  variables: Record<string, unknown> = {},
): Promise<Row[]> {
  const r = await gql<{ usage: { deployments: { rows: Row[]; truncated: boolean } } }>(
    server,
    auth,
    QUERY,
    variables,
  );
  expect(r.errors).toBeUndefined();
  expect(r.data?.usage.deployments.truncated).toBe(false);
  return r.data?.usage.deployments.rows ?? [];
}

beforeAll(async () => {
  [east, west] = (await Promise.all(['east', 'west'].map(startFakeDeployment))) as [
    FakeDeployment,
    FakeDeployment,
  ];
  server = await startTestServer({
    env: {
      MODELS_FILE: writeCatalogue([
        catalogueEntry('routed', 'openai', 'catalogue-model', {
          pricing: [PRICE],
          deployments: [east, west].map((fake) => ({
            name: fake.name,
            base_url: fake.url,
            api_key_env: keyVariable(fake),
          })),
          routing: { breaker: { failures: 1_000, min_requests: 1_000 } },
        }),
      ]),
      ...keysOf([east, west]),
      PLAN_PRO_RPM: '100000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  accountId = created.account.id;
  liveKeyId = created.key.id;
  live = client(server, created.key.key);
  const testKey = await createKey(server, accountId, 'test');
  const other = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  otherKey = other.key.key;

  // east answers 3 calls and a stream; then fails, so that west answers 2 and the third fails on both.
  for (let i = 0; i < 3; i++) await live.chat.completions.create({ model: 'routed', messages });
  const stream = await live.chat.completions.create({ model: 'routed', messages, stream: true });
  for await (const _ of stream) {
    // drained
  }
  east.mode = 'fail';
  for (let i = 0; i < 2; i++) await live.chat.completions.create({ model: 'routed', messages });
  west.mode = 'fail';
  await expect(live.chat.completions.create({ model: 'routed', messages })).rejects.toThrow();
  // A model that does not exist names no deployment and adds no row; the test key's call is the simulator's.
  await expect(live.chat.completions.create({ model: 'nope', messages })).rejects.toThrow();
  await client(server, testKey.key).chat.completions.create({ model: 'routed', messages });
  // The other account's traffic must never show in this one's panel.
  east.mode = 'ok';
  await client(server, otherKey).chat.completions.create({ model: 'routed', messages });

  const deadline = Date.now() + 10_000;
  for (;;) {
    await server.services.usage.flush();
    // A usage event is recorded when its response has ended, which may be after the client has read it.
    const mine = await rows({ key: created.key.key });
    const theirs = await rows({ key: otherKey });
    const total = (list: Row[]) => list.reduce((n, r) => n + r.requests, 0);
    if ((total(mine) >= 8 && total(theirs) >= 1) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await server?.close();
  await Promise.all([east, west].map((f) => f?.close()));
});

describe('GraphQL usage.deployments', () => {
  it('sums each model and deployment: requests, errors, percentiles, tokens and cost, busiest first', async () => {
    const all = await rows({ cookie: await sessionCookie(server, accountId) });
    expect(all.map((r) => [r.model, r.deployment, r.requests, r.errors])).toEqual([
      ['routed', 'east', 4, 0],
      ['routed', 'west', 3, 1],
      ['routed', 'simulator', 1, 0],
    ]);
    const [eastRow, westRow] = all as [Row, Row];
    expect(eastRow.successRate).toBe(1);
    expect(westRow.successRate).toBeCloseTo(2 / 3);
    for (const r of [eastRow, westRow]) {
      expect(r.averageLatencyMs).toBeGreaterThan(0);
      expect(r.p50LatencyMs).toBeGreaterThan(0);
      expect(r.p95LatencyMs).toBeGreaterThanOrEqual(r.p50LatencyMs ?? 0);
    }
    // Non-streamed and streamed calls alike report the upstream's usage; the failed call bills nothing.
    expect(eastRow.tokens).toBe(4 * 12);
    expect(eastRow.costMicros).toBe(4 * CALL_MICROS);
    expect(westRow.tokens).toBe(2 * 12);
    expect(westRow.costMicros).toBe(2 * CALL_MICROS);
  });

  it('is narrowed by mode, key and endpoint like the rest of usage', async () => {
    const auth = { cookie: await sessionCookie(server, accountId) };
    const liveRows = await rows(auth, { mode: 'LIVE' });
    expect(liveRows.map((r) => r.deployment)).toEqual(['east', 'west']);
    const testRows = await rows(auth, { mode: 'TEST' });
    expect(testRows.map((r) => [r.deployment, r.requests])).toEqual([['simulator', 1]]);
    const byKey = await rows(auth, { keyId: liveKeyId });
    expect(byKey.map((r) => r.deployment)).toEqual(['east', 'west']);
    const models = await rows(auth, { method: 'GET', path: '/v1/models' });
    expect(models).toEqual([]);
  });

  it("shows only the caller's account: another account sees its own call and nothing else", async () => {
    const theirs = await rows({ key: otherKey });
    expect(theirs.map((r) => [r.model, r.deployment, r.requests])).toEqual([['routed', 'east', 1]]);
    // Naming this account's key narrows their usage to nothing, never to this account's rows.
    expect(await rows({ key: otherKey }, { keyId: liveKeyId })).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Issue 27: one account cannot hold every database connection through GraphQL either. Usage aggregates run at
 * most ANALYTICS_MAX_CONCURRENT at once per instance and ANALYTICS_MAX_CONCURRENT_PER_ACCOUNT per account; more of
 * one account's wait in turn, and past ANALYTICS_QUEUE_PER_ACCOUNT waiting they are refused (429 in the GraphQL
 * error's extensions). Another account's query meanwhile is answered at once. The flood is held in the server's
 * own gate (deterministic: no timing).
 */
let server: TestServer;
let flooder: { key: string; accountId: string };
let other: string;

const SUMMARY = '{ usage(period: LAST_24H) { summary { totalRequests } } }';

beforeAll(async () => {
  server = await startTestServer({
    env: {
      ANALYTICS_MAX_CONCURRENT: '3',
      ANALYTICS_MAX_CONCURRENT_PER_ACCOUNT: '2',
      ANALYTICS_QUEUE_PER_ACCOUNT: '3',
    },
  });
  const a = await createAccountWithKey(server, { plan: 'pro' });
  flooder = { key: a.key.key, accountId: a.account.id };
  other = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
});
afterAll(() => server?.close());

describe('a share of the analytics connections per account', () => {
  it("holds a flooding account to its share and its queue, while another account's usage is answered at once", async () => {
    const gate = server.services.analyticsGate;
    let release = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const refuse = () => new Error('refused');
    // The flooding account's share (2) is taken and three more of its reads wait: its queue (3) is full.
    const held = [0, 1, 2, 3, 4].map(() => gate.run(flooder.accountId, () => hold, refuse));
    expect(gate.runningFor(flooder.accountId)).toBe(2);

    const refused = await gql(server, { key: flooder.key }, SUMMARY);
    expect(refused.status).toBe(429);
    try {
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(refused.errors?.[0]?.message).toMatch(/Too many usage queries at once/);

      // The other account is under its share and a slot (of 3) is free: it is answered now, not after the flood.
      const served = await gql<{ usage: { summary: { totalRequests: number } } }>(
        server,
        { key: other },
        SUMMARY,
      );
      expect(served.status).toBe(200);
      expect(served.errors).toBeUndefined();
      expect(typeof served.data?.usage.summary.totalRequests).toBe('number');
    } finally {
      release();
      await Promise.all(held);
    }
    expect(gate.runningFor(flooder.accountId)).toBe(0);
    const after = await gql(server, { key: flooder.key }, SUMMARY);
    expect(after.status).toBe(200);
    expect(after.errors).toBeUndefined();
  });

  it('runs the aggregates of one request in turn within the share instead of refusing them', async () => {
    // Five aggregates in one request, more than the account's share (2): two run, three wait in its queue (3),
    // and all are answered in turn.
    const res = await gql(
      server,
      { key: other },
      '{ usage(period: LAST_24H) { summary { totalRequests } timeseries { requests } endpoints { requests } errorGroups { truncated } recentErrors { edges { cursor } } } }',
    );
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
  });
});

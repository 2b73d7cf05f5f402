/** The demo account's sample traffic: metered like real calls, labelled, and removed with one action. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoIfEmpty } from '../../src/lifecycle';
import { createAccountWithKey } from '../helpers/fixtures';
import { gql, sessionCookie } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const QUERY = /* GraphQL */ `
  query Demo($period: UsagePeriod!) {
    viewer { sampleData account { id } }
    usage(period: $period) {
      summary { totalRequests totalCostMicros previous { totalRequests } change { totalRequests } }
      endpoints { path requests }
      errorGroups(first: 5) { groups { status count } }
    }
  }
`;

interface DemoData {
  viewer: { sampleData: boolean; account: { id: string } };
  usage: {
    summary: {
      totalRequests: number;
      totalCostMicros: number;
      previous: { totalRequests: number };
      change: { totalRequests: number | null };
    };
    endpoints: { path: string; requests: number }[];
    errorGroups: { groups: { status: number; count: number }[] };
  };
}

describe('demo sample data', () => {
  it('fills every part of the dashboard, is labelled, and one action removes it and nothing else', async () => {
    const demo = await seedDemoIfEmpty(server.services);
    expect(demo).not.toBeNull();
    if (!demo) return;
    expect(demo.sampleEvents).toBeGreaterThan(1_000);
    const client = new TrpcTestClient(server.url);
    const signIn = await client.mutation('auth.signIn', { email: demo.email, password: demo.password });
    expect(signIn.status).toBe(200);
    const cookie = client.cookie ?? '';

    const month = await gql<DemoData>(server, { cookie }, QUERY, { period: 'LAST_30D' });
    expect(month.errors).toBeUndefined();
    expect(month.data?.viewer.sampleData).toBe(true);
    expect(month.data?.usage.summary.totalRequests).toBe(demo.sampleEvents);
    // Its chat calls are priced as the catalogue prices their model: the spend card has something to show.
    expect(month.data?.usage.summary.totalCostMicros).toBeGreaterThan(0);
    expect(month.data?.usage.endpoints.map((e) => e.path).sort()).toEqual([
      '/api/code/analyze',
      '/api/search',
      '/v1/chat/completions',
      '/v1/models',
    ]);
    expect(month.data?.usage.errorGroups.groups.length).toBeGreaterThan(0);
    // A week against the week before: the change vs the previous period shows.
    const week = await gql<DemoData>(server, { cookie }, QUERY, { period: 'LAST_7D' });
    expect(week.data?.usage.summary.previous.totalRequests).toBeGreaterThan(0);
    expect(week.data?.usage.summary.change.totalRequests).not.toBeNull();

    // A real call with the demo key is metered beside the sample and outlives its removal.
    const real = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${demo.key}` } });
    expect(real.status).toBe(200);
    await server.services.usage.flush();

    const removed = await client.mutation<{ removedEvents: number }>('demo.removeSampleData');
    expect(removed.status).toBe(200);
    expect(removed.data?.removedEvents).toBe(demo.sampleEvents);
    const after = await gql<DemoData>(server, { cookie }, QUERY, { period: 'LAST_30D' });
    expect(after.data?.viewer.sampleData).toBe(false);
    expect(after.data?.usage.summary.totalRequests).toBe(1);
    expect(after.data?.usage.summary.totalCostMicros).toBe(0);
    expect(after.data?.usage.endpoints).toEqual([{ path: '/v1/models', requests: 1 }]);
    const again = await client.mutation<{ removedEvents: number }>('demo.removeSampleData');
    expect(again.data?.removedEvents).toBe(0);
  });

  it('is never given to another account, and a second start seeds nothing', async () => {
    const { account } = await createAccountWithKey(server);
    const cookie = await sessionCookie(server, account.id);
    const r = await gql<DemoData>(server, { cookie }, QUERY, { period: 'LAST_30D' });
    expect(r.data?.viewer.sampleData).toBe(false);
    expect(r.data?.usage.summary.totalRequests).toBe(0);
    expect(await seedDemoIfEmpty(server.services)).toBeNull();
  });
});

import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { usageEvents, usageRollups } from '../../src/db/schema';
import { createAccountWithKey } from '../helpers/fixtures';
import type { TestServer } from '../helpers/server';
import { type FlakyUsageStore, metricValue, startServerWithFlakyUsage } from '../helpers/usage';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function call(base: string, key: string, path = '/v1/models'): Promise<string | null> {
  try {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    return res.headers.get('x-request-id');
  } catch {
    return null; // refused once the server stopped accepting
  }
}

async function dropped(s: TestServer): Promise<number> {
  const text = await s.services.metrics.registry.metrics();
  return ['buffer_full', 'shutdown', 'unresolved_overflow'].reduce(
    (n, reason) => n + metricValue(text, 'tessera_usage_events_dropped_total', `{reason="${reason}"}`),
    0,
  );
}

describe('usage durability', () => {
  it('graceful close under load writes the event of every answered request', async () => {
    let store: FlakyUsageStore;
    ({ server, store } = await startServerWithFlakyUsage({ USAGE_FLUSH_INTERVAL_MS: '60000' }));
    const s = server;
    const { key } = await createAccountWithKey(s);
    // Load from several concurrent clients; close in the middle of it.
    const clients = Array.from({ length: 8 }, async () => {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const id = await call(s.url, key.key);
        if (id === null) break;
        ids.push(id);
      }
      return ids;
    });
    await new Promise((r) => setTimeout(r, 300));
    const closing = s.close(2_000);
    const answered = (await Promise.all(clients)).flat();
    await closing;
    server = undefined;
    expect(answered.length).toBeGreaterThan(0);
    const written = new Set(store.written.map((e) => e.requestId));
    const missing = answered.filter((id) => !written.has(id));
    expect(missing).toEqual([]);
    expect(await dropped(s)).toBe(0);
  });

  it('keeps events through a database outage and writes all of them when it returns', async () => {
    let store: FlakyUsageStore;
    ({ server, store } = await startServerWithFlakyUsage({ USAGE_FLUSH_INTERVAL_MS: '100' }));
    const { key } = await createAccountWithKey(server);
    store.failing = true;
    const ids = await Promise.all(
      Array.from({ length: 60 }, () => call((server as TestServer).url, key.key)),
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(store.failedWrites).toBeGreaterThan(0);
    expect(store.written).toHaveLength(0);
    expect(server.services.usage.depth).toBe(60);
    store.failing = false;
    const deadline = Date.now() + 15_000;
    while (server.services.usage.depth > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(new Set(store.written.map((e) => e.requestId))).toEqual(new Set(ids));
    expect(await dropped(server)).toBe(0);
  });

  it('a write committed whose answer was lost is not written again: no request counted twice', async () => {
    let store: FlakyUsageStore;
    ({ server, store } = await startServerWithFlakyUsage({ USAGE_FLUSH_INTERVAL_MS: '60000' }));
    const { account, key } = await createAccountWithKey(server);
    // A client-chosen request id that repeats must not be mistaken for a stored event either.
    const repeated = async () => {
      const res = await fetch(`${(server as TestServer).url}/v1/models`, {
        headers: { authorization: `Bearer ${key.key}`, 'x-request-id': 'same-id' },
      });
      await res.arrayBuffer();
    };
    for (let i = 0; i < 5; i++) await call(server.url, key.key);
    await repeated();
    store.lostCommitAnswers = 1;
    await server.services.usage.flush(); // commits, then "fails"
    await repeated();
    for (let i = 0; i < 4; i++) await call(server.url, key.key);
    await server.services.usage.stop(5_000); // the retry, with the four new events and the repeated id
    const db = server.services.ctx.db;
    const events = await db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    expect(events).toHaveLength(11);
    expect(events.filter((e) => e.requestId === 'same-id')).toHaveLength(2);
    const [rollup] = await db
      .select({ requests: sql<number>`sum(${usageRollups.requests})::int` })
      .from(usageRollups)
      .where(and(eq(usageRollups.accountId, account.id), eq(usageRollups.granularity, 'minute')));
    expect(rollup?.requests).toBe(11);
  });

  it('beyond the buffer bound, counts and reports the drops', async () => {
    let store: FlakyUsageStore;
    ({ server, store } = await startServerWithFlakyUsage({
      USAGE_BUFFER_MAX: '5',
      USAGE_FLUSH_INTERVAL_MS: '100',
    }));
    const { key } = await createAccountWithKey(server);
    store.failing = true;
    for (let i = 0; i < 8; i++) await call(server.url, key.key);
    store.failing = false;
    await server.services.usage.stop(5_000);
    expect(store.written).toHaveLength(5);
    const text = await server.services.metrics.registry.metrics();
    expect(metricValue(text, 'tessera_usage_events_dropped_total', '{reason="buffer_full"}')).toBe(3);
    expect(metricValue(text, 'tessera_usage_events_written_total')).toBe(5);
  });
});

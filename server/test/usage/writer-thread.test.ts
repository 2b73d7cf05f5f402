/** Usage written by a thread of its own on Postgres (modules/usage/writer-thread.ts). */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents, usageRollups } from '../../src/db/schema';
import { createLogger } from '../../src/logger';
import { hashKey } from '../../src/modules/keys';
import { ThreadedUsageStore, type UsageEvent, UsageWriterError } from '../../src/modules/usage';
import { usingPostgres } from '../helpers/database';
import { createAccountWithKey } from '../helpers/fixtures';
import { LogCapture } from '../helpers/log-capture';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  if (usingPostgres()) server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function event(accountId: string, keyId: string, i: number): UsageEvent {
  return {
    occurredAt: Date.UTC(2026, 10, 24, 8, 0, 0, i) + 0.25,
    requestId: `req_thread_${i}`,
    accountId,
    keyId,
    mode: 'live',
    method: 'POST',
    route: '/v1/chat/completions',
    status: i % 5 === 0 ? 429 : 200,
    latencyMs: 1.5 + i,
    model: 'tessera-fast-4k',
    deployment: 'simulator',
    promptTokens: 10 + i,
    completionTokens: 2 * i,
    costMicros: null,
    errorType: null,
    errorCode: null,
    errorMessage: null,
  };
}

describe.skipIf(!usingPostgres())('the usage writer thread (PostgreSQL)', () => {
  it('writes events and rollups, skips a retried batch already stored, resolves keys, prunes', async () => {
    const { account, key } = await createAccountWithKey(server, { kind: 'live' });
    const store = new ThreadedUsageStore(
      { url: server.databaseUrl ?? '', maxConnections: 2 },
      server.services.ctx.logger,
    );
    try {
      const events = Array.from({ length: 250 }, (_, i) => event(account.id, key.id, i));
      await store.write(events);
      // A retry of a write that may have committed: every event suspect, none stored twice.
      await store.write(events.slice(0, 10), () => true);
      const db = server.services.ctx.db;
      const rows = await db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
      expect(rows).toHaveLength(250);
      const first = rows.find((r) => r.requestId === 'req_thread_7');
      expect(first).toMatchObject({ status: 200, promptTokens: 17, completionTokens: 14, latencyMs: 8.5 });
      const [minute] = await db
        .select({
          requests: sql<number>`sum(${usageRollups.requests})::int`,
          errors: sql<number>`sum(${usageRollups.errors})::int`,
        })
        .from(usageRollups)
        .where(and(eq(usageRollups.accountId, account.id), eq(usageRollups.granularity, 'minute')));
      expect(minute).toEqual({ requests: 250, errors: 50 });

      const owners = await store.resolveKeys([hashKey(key.key), hashKey('sk_live_nobody')]);
      expect([...owners]).toEqual([
        [hashKey(key.key), { keyId: key.id, accountId: account.id, mode: 'live' }],
      ]);
      expect(await store.prune({ events: new Date(0), minuteRollups: new Date(0) })).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('a thread that dies fails what was in flight, and the next write starts another', async () => {
    const { account, key } = await createAccountWithKey(server, { kind: 'live' });
    const logs = new LogCapture();
    const store = new ThreadedUsageStore(
      { url: server.databaseUrl ?? '', maxConnections: 2 },
      createLogger('info', logs),
    );
    try {
      await store.write([event(account.id, key.id, 1)]);
      const inFlight = store.write([event(account.id, key.id, 2)]);
      await store.thread?.terminate();
      await expect(inFlight).rejects.toBeInstanceOf(UsageWriterError);
      expect(logs.text()).toContain('usage writer thread stopped');
      // The recorder keeps a failed batch and writes it again: here by hand, as a suspect batch.
      await store.write([event(account.id, key.id, 2), event(account.id, key.id, 3)], () => true);
      const rows = await server.services.ctx.db
        .select({ id: usageEvents.requestId })
        .from(usageEvents)
        .where(eq(usageEvents.accountId, account.id));
      expect(rows.map((r) => r.id).sort()).toEqual(['req_thread_1', 'req_thread_2', 'req_thread_3']);
    } finally {
      await store.close();
    }
    await expect(store.write([event(account.id, key.id, 4)])).rejects.toThrow(/closed/);
  });

  it('a database it cannot reach fails the write with the driver error, which the recorder retries', async () => {
    const store = new ThreadedUsageStore(
      { url: 'postgres://postgres@127.0.0.1:1/nowhere', maxConnections: 1 },
      server.services.ctx.logger,
    );
    try {
      const err = await store.write([event('acct', 'key', 1)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageWriterError);
      expect((err as UsageWriterError).code).toBe('ECONNREFUSED');
    } finally {
      await store.close();
    }
  });

  it('the server writes usage through it, on connections of its own', async () => {
    const { account, key } = await createAccountWithKey(server, { kind: 'test' });
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(res.status).toBe(200);
    await server.services.usage.flush();
    const rows = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id));
    expect(rows.map((r) => [r.method, r.route, r.status])).toEqual([['GET', '/v1/models', 200]]);
    const writers = await server.services.ctx.db.execute(
      sql`select count(*)::int as n from pg_stat_activity
          where application_name = 'tessera-usage-writer' and datname = current_database()`,
    );
    expect(Number((writers as unknown as { n: number }[])[0]?.n)).toBeGreaterThan(0);
  });
});

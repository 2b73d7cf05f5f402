import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client';
import { asUnavailable } from '../../src/errors';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

// db/deadline.ts on its own: against a Postgres that stalls (the proxy forwards nothing), a statement and a
// transaction (its statements, and its wait for BEGIN) fail within the deadline with an error every transport
// maps to 503, and work again once Postgres answers. Needs a real Postgres.
const postgres = usingPostgres();
if (!postgres) console.warn('db-stall-deadline.test.ts skipped: set TEST_DATABASE_URL to run it');

let direct: Awaited<ReturnType<typeof openTestDatabase>>;
let proxy: TcpProxy;
let bounded: Database;

beforeAll(async () => {
  if (!postgres) return;
  direct = await openTestDatabase();
  const url = new URL(direct.url ?? '');
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  bounded = openDatabase({ url: url.toString(), maxConnections: 2, timeoutMs: 500 });
});
afterAll(async () => {
  proxy?.restore();
  await bounded?.close();
  await proxy?.close();
  await direct?.close();
});

async function timed(work: () => Promise<unknown>): Promise<{ ms: number; err: unknown }> {
  const started = performance.now();
  try {
    await work();
    return { ms: performance.now() - started, err: undefined };
  } catch (err) {
    return { ms: performance.now() - started, err };
  }
}

describe.skipIf(!postgres)('the request pool against a stalled Postgres', () => {
  it('fails statements and transactions within the deadline, as unavailable; recovers after', async () => {
    // Both connections open, so that the stall catches statements on established connections.
    await Promise.all([bounded.db.execute(sql`select pg_sleep(0.05)`), bounded.db.execute(sql`select 1`)]);
    proxy.stall();
    try {
      const results = await Promise.all([
        timed(() => bounded.db.execute(sql`select 1`)),
        timed(() => bounded.db.transaction(async (tx) => tx.execute(sql`select 1`))),
        // Waits for a connection behind the two stuck ones.
        timed(() => bounded.db.transaction(async (tx) => tx.execute(sql`select 2`))),
      ]);
      for (const { ms, err } of results) {
        expect(asUnavailable(err)?.code).toBe('service_unavailable');
        expect(ms).toBeLessThan(1_500);
      }
    } finally {
      proxy.restore();
    }
    const deadline = Date.now() + 10_000;
    let ok = false;
    while (!ok && Date.now() < deadline) {
      ok =
        (await timed(() => bounded.db.transaction(async (tx) => tx.execute(sql`select 1`)))).err ===
        undefined;
    }
    expect(ok).toBe(true);
  }, 30_000);
});

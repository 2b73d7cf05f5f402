import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/modules/search/sql';
import { createAccountWithKey } from '../helpers/fixtures';
import { generated } from '../helpers/search-proof';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The search tables' planner statistics follow the writes (modules/search/maintenance.ts): PGlite has no
 * autovacuum, and without statistics the planner took a loaded collection for a few rows and scanned all of it
 * for a rare word instead of using the GIN index.
 */
let server: TestServer;
let key: string;
let next = 0;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await createAccountWithKey(server).then((r) => ({ key: r.key.key })));
});
afterAll(async () => {
  await server?.close();
});

async function write(n: number) {
  const documents = Array.from({ length: n }, () => generated(next++, 3));
  const res = await fetch(`${server.url}/api/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ collection: 'stats', documents }),
  });
  expect(res.status).toBe(200);
  await server.services.searchMaintenance.idle();
}

async function counted(): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    server.services.ctx.db,
    sql`select reltuples::float8 as n from pg_class where relname = 'search_documents' and relkind = 'r'`,
  );
  return row?.n ?? Number.NaN;
}

describe('planner statistics of the search tables', () => {
  it('are refreshed once the documents written pass 50 + 10 % of those last counted, not before', async () => {
    const maintenance = server.services.searchMaintenance;
    maintenance.analyzeIntervalMs = 0;
    const before = maintenance.analyzesRun;
    await write(40);
    expect(maintenance.analyzesRun).toBe(before);
    await write(100);
    expect(maintenance.analyzesRun).toBe(before + 1);
    expect(await counted()).toBe(140);
    // 50 + 14 more are needed now: 60 are not enough, 10 more are.
    await write(60);
    expect(maintenance.analyzesRun).toBe(before + 1);
    await write(10);
    expect(maintenance.analyzesRun).toBe(before + 2);
    expect(await counted()).toBe(210);
  });

  it('wait between two refreshes, and a refresh due meanwhile still runs', async () => {
    const maintenance = server.services.searchMaintenance;
    maintenance.analyzeIntervalMs = 1_500;
    const before = maintenance.analyzesRun;
    await write(100);
    expect(maintenance.analyzesRun).toBe(before + 1);
    const started = Date.now();
    await write(100); // due at once, run after the interval (idle waits for it)
    expect(maintenance.analyzesRun).toBe(before + 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(await counted()).toBe(410);
  });

  it("leave no write's index entries pending: the GIN indexes' pending lists are emptied in the background", async () => {
    const maintenance = server.services.searchMaintenance;
    const db = server.services.ctx.db;
    maintenance.cleanEveryEntries = 200;
    await write(60); // the entries of the tests before, and these: emptied
    const before = maintenance.pendingCleans;
    await write(3); // at most ~16 lexemes a document: under the threshold, nothing emptied yet
    expect(maintenance.pendingCleans).toBe(before);
    await write(60);
    expect(maintenance.pendingCleans).toBe(before + 1);
    // Nothing left for a clean run now: the background one took the write's entries.
    const [left] = await queryRows<{ pages: number }>(
      db,
      sql`select search_clean_pending_lists()::int as pages`,
    );
    expect(left?.pages).toBe(0);
    // While the background is held back, a write's entries are pending (what the background run takes).
    await maintenance.stop();
    try {
      await write(30);
      const [pending] = await queryRows<{ pages: number }>(
        db,
        sql`select search_clean_pending_lists()::int as pages`,
      );
      expect(pending?.pages).toBeGreaterThan(0);
    } finally {
      maintenance.start();
    }
    const limits = await queryRows<{ options: string[] }>(
      db,
      sql`select reloptions as options from pg_class
          where relname in ('search_documents_tsv_idx', 'search_terms_trgm_idx')`,
    );
    expect(limits.map((r) => r.options)).toEqual([
      ['gin_pending_list_limit=65536'],
      ['gin_pending_list_limit=65536'],
    ]);
  });
});

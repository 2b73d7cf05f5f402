import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openTestDatabase, usingPostgres } from '../helpers/database';

// Runs on PGlite by default and on the real Postgres when TEST_DATABASE_URL is set (CI runs both).
describe(`migrations on ${usingPostgres() ? 'PostgreSQL' : 'PGlite'}`, () => {
  it('apply from scratch, are idempotent, and create every table', async () => {
    const database = await openTestDatabase();
    try {
      await database.migrate();
      await database.migrate();
      const result = await database.db.execute<{ table_name: string }>(
        sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
      );
      const rows = Array.isArray(result) ? result : (result as { rows: { table_name: string }[] }).rows;
      const names = rows.map((r) => r.table_name);
      expect(names).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'sessions']));
    } finally {
      await database.close();
    }
  });
});

describe.skipIf(!usingPostgres())('migrations from several instances at once (PostgreSQL)', () => {
  it('apply once, whichever instance gets there first, and every instance starts', async () => {
    const first = await openTestDatabase();
    const url = first.url ?? '';
    const { openDatabase } = await import('../../src/db/client');
    const others = [openDatabase({ url, maxConnections: 2 }), openDatabase({ url, maxConnections: 2 })];
    try {
      await Promise.all([first.migrate(), ...others.map((d) => d.migrate())]);
      const result = await first.db.execute<{ n: string; distinct_hashes: string }>(
        sql`select count(*) as n, count(distinct hash) as distinct_hashes from drizzle.__drizzle_migrations`,
      );
      const rows = Array.isArray(result)
        ? result
        : (result as { rows: { n: string; distinct_hashes: string }[] }).rows;
      expect(Number(rows[0]?.n)).toBeGreaterThan(0);
      expect(Number(rows[0]?.n)).toBe(Number(rows[0]?.distinct_hashes));
    } finally {
      for (const d of others) await d.close();
      await first.close();
    }
  });
});

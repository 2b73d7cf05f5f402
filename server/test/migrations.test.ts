import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openTestDatabase, usingPostgres } from './helpers/database';

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

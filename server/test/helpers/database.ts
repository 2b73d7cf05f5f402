import postgres from 'postgres';
import { type Database, openDatabase } from '../../src/db/client';
import { randomBase62 } from '../../src/lib/ids';

/**
 * A throwaway database for one test server: a fresh PostgreSQL database when `TEST_DATABASE_URL`
 * (or `DATABASE_URL`) is set, as in CI, else an in-memory PGlite. Dropped when closed.
 */
export async function openTestDatabase(): Promise<Database & { url: string | undefined }> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) return { ...openDatabase({ dataDir: 'memory://' }), url: undefined };

  // TEST_DATABASE_KEEP (benchmarks only, e.g. `--keep=` of bench/search): a named database that is
  // created when missing and kept when closed, so that a loaded collection is measured again.
  const keep = process.env.TEST_DATABASE_KEEP;
  if (keep !== undefined && !/^[a-z_][a-z0-9_]*$/.test(keep))
    throw new Error('TEST_DATABASE_KEEP: a lower-case name');
  const name = keep ?? `tessera_t_${randomBase62(12).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const exists =
    keep !== undefined && (await admin`select 1 from pg_database where datname = ${keep}`).length > 0;
  if (!exists) await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = openDatabase({ url: url.toString(), maxConnections: 5 });
  return {
    ...database,
    url: url.toString(),
    async close() {
      await database.close();
      if (keep !== undefined) return;
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

export function usingPostgres(): boolean {
  return Boolean(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL);
}

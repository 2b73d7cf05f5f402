import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { type Database, openDatabase } from '../../src/db/client';
import { randomBase62 } from '../../src/lib/ids';

/** The test run's migrated templates (made by test/database-template.ts, vitest's global setup). */
export const PGLITE_TEMPLATE_ENV = 'TESSERA_TEST_PGLITE_TEMPLATE';
export const POSTGRES_TEMPLATE_ENV = 'TESSERA_TEST_POSTGRES_TEMPLATE';
/** The migrated embedded database unpacked on disk, that processes' data directories are copied from. */
export const DATA_DIR_TEMPLATE_ENV = 'TESSERA_TEST_DATA_DIR_TEMPLATE';

let template: Blob | undefined;
function pgliteTemplate(): Blob | undefined {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (!file) return undefined;
  template ??= new Blob([readFileSync(file)]);
  return template;
}

/**
 * A throwaway database for one test server: a fresh PostgreSQL database when `TEST_DATABASE_URL`
 * (or `DATABASE_URL`) is set, as in CI, else an in-memory PGlite. Dropped when closed.
 * `migrated`: the database comes with every migration applied, made from the run's migrated template (or
 * migrated here when there is none, e.g. in a benchmark); without it the database is empty (the migration tests).
 */
export async function openTestDatabase(
  options: { migrated?: boolean } = {},
): Promise<Database & { url: string | undefined }> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) {
    const loadDataDir = options.migrated ? pgliteTemplate() : undefined;
    const database = openDatabase({ dataDir: 'memory://', ...(loadDataDir && { loadDataDir }) });
    if (options.migrated && !loadDataDir) await database.migrate();
    return { ...database, url: undefined };
  }

  // TEST_DATABASE_KEEP (benchmarks only, e.g. `--keep=` of bench/search): a named database that is
  // created when missing and kept when closed, so that a loaded collection is measured again.
  const keep = process.env.TEST_DATABASE_KEEP;
  if (keep !== undefined && !/^[a-z_][a-z0-9_]*$/.test(keep))
    throw new Error('TEST_DATABASE_KEEP: a lower-case name');
  // TEST_DATABASE_PREFIX: the new database's name starts with it instead of tessera_t (a shared server's
  // users tell their databases apart by name).
  const prefix = process.env.TEST_DATABASE_PREFIX ?? 'tessera_t';
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error('TEST_DATABASE_PREFIX: a lower-case name');
  const name = keep ?? `${prefix}_${randomBase62(12).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const exists =
    keep !== undefined && (await admin`select 1 from pg_database where datname = ${keep}`).length > 0;
  const template = options.migrated ? process.env[POSTGRES_TEMPLATE_ENV] : undefined;
  if (!exists) await admin.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = openDatabase({ url: url.toString(), maxConnections: 5 });
  if (options.migrated && !template) await database.migrate();
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

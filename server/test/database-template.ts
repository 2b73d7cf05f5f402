/**
 * Vitest global setup (vite.config.ts): one database migrated to the current schema, that every test server's
 * database is made from (`openTestDatabase({ migrated: true })`), instead of migrating each anew.
 * - Embedded (PGlite): a dumped data directory. Starting PGlite runs initdb, seconds on this machine, and most
 *   test files start several servers; loading a dumped data directory skips it. The same dump unpacked on disk
 *   is the data directory that server and CLI processes start from (helpers/process.ts `newDataDir`): they
 *   always use the embedded database of their DATA_DIR, so it is made on PostgreSQL runs too.
 * - PostgreSQL (TEST_DATABASE_URL): a template database; `create database … template` copies it in a fraction
 *   of the time fourteen migrations take.
 * Made anew on every run from the migrations in the tree, so it never goes stale, and removed at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import postgres from 'postgres';
import { MIGRATIONS_FOLDER, openDatabase } from '../src/db/client';
import { randomBase62 } from '../src/lib/ids';
import { DATA_DIR_TEMPLATE_ENV, PGLITE_TEMPLATE_ENV, POSTGRES_TEMPLATE_ENV } from './helpers/database';
import { oncePerRun } from './helpers/once-per-run';

export const setup = oncePerRun('database-template', async () => {
  const removePglite = await pgliteTemplates();
  const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) return removePglite;
  const name = `tessera_template_${randomBase62(10).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // Two: the migration holds its advisory lock on one reserved connection and migrates on another.
  const database = openDatabase({ url: url.toString(), maxConnections: 2 });
  await database.migrate();
  // A template may have no connection open while it is copied.
  await database.close();
  process.env[POSTGRES_TEMPLATE_ENV] = name;
  return async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    await removePglite();
  };
});

/** The embedded templates: the dump (in-process test databases) and it unpacked on disk (processes' DATA_DIR). */
async function pgliteTemplates(): Promise<() => Promise<void>> {
  // The test files' processes start after the global setup and inherit its environment.
  const client = new PGlite('memory://', { extensions: { pg_trgm } });
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  const dump = await client.dumpDataDir('none');
  await client.close();
  const dir = mkdtempSync(join(tmpdir(), 'tessera-pglite-'));
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env[PGLITE_TEMPLATE_ENV] = file;
  const dataDir = join(dir, 'data');
  const unpacked = new PGlite(dataDir, { extensions: { pg_trgm }, loadDataDir: dump });
  await unpacked.close();
  process.env[DATA_DIR_TEMPLATE_ENV] = dataDir;
  return async () => rmSync(dir, { recursive: true, force: true });
}

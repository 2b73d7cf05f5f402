import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { expect } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/client';
import { usingPostgres } from './database';

/** The migrations folder as it was before a given migration: its SQL files and a cut journal. */
export function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** Applies a migrations folder with the migrator matching the driver under test. */
export async function migrateWith(db: unknown, migrationsFolder: string): Promise<void> {
  // biome-ignore lint/suspicious/noExplicitAny: the migrator matching the driver under test
  if (usingPostgres()) await migratePostgres(db as any, { migrationsFolder });
  // biome-ignore lint/suspicious/noExplicitAny: the migrator matching the driver under test
  else await migratePglite(db as any, { migrationsFolder });
}

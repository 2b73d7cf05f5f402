import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;
/** The database as modules see it: the same API on PGlite and on Postgres. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The connection URL (Postgres only), for a thread that opens connections of its own. */
  url?: string;
  migrate(): Promise<void>;
  /** Cheap round trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Arbitrary constant naming Tessera's migration lock among the database's advisory locks. */
const MIGRATION_LOCK_ID = 7_253_140_042;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string | undefined;
  /** PGlite data folder, or `memory://` for a throwaway database. */
  dataDir?: string;
  maxConnections?: number;
  /** Postgres's `application_name` for these connections (how they show in `pg_stat_activity`). */
  applicationName?: string;
}

export function openDatabase(options: DatabaseOptions): Database {
  if (options.url) return openPostgres(options.url, options.maxConnections ?? 10, options.applicationName);
  return openPglite(options.dataDir ?? 'memory://');
}

/**
 * Seconds before a connection that failed is tried again. postgres.js's default grows as 3^n / 100 over the
 * failures of the whole pool, up to 20 s: after an outage of a few seconds under load the pool waited 10-20 s
 * before using a Postgres that was back. Here: 0.1 s doubling, at most 1 s (with jitter), so work resumes
 * within about a second, while a pool of N connections makes at most about N attempts a second when it is down.
 */
export function reconnectDelaySeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.1 * 2 ** failures, 1);
}

function openPostgres(url: string, max: number, applicationName = 'tessera'): Database {
  const client = postgres(url, {
    max,
    connection: { application_name: applicationName },
    onnotice: () => {},
    connect_timeout: 10,
    backoff: reconnectDelaySeconds,
  });
  const db = drizzlePostgres(client, { schema, casing: 'snake_case' });
  return {
    db,
    kind: 'postgres',
    url,
    migrate: async () => {
      // drizzle's migrator takes no lock: instances starting together would race to apply the same migration.
      // A session advisory lock, held on one reserved connection, makes them apply it one after another;
      // the later ones then find every migration recorded and do nothing.
      const holder = await client.reserve();
      try {
        await holder`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await holder`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.catch(() => {});
        holder.release();
      }
    },
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

function openPglite(dataDir: string): Database {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs fuzzy search; the migrations create the extension.
  const client = new PGlite(dataDir, { extensions: { pg_trgm } });
  const db = drizzlePglite(client, { schema, casing: 'snake_case' });
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres, { type Sql } from 'postgres';
import { serverPath } from '../lib/paths';
import { DatabaseSetupError, grantAppRole, postgresError, roleOf } from './app-role';
import { withStatementDeadline } from './deadline';
import * as schema from './schema';
import type { Database } from './types';

/**
 * PostgreSQL through postgres.js, apart from client.ts so that a thread that only writes to Postgres (the usage
 * writer) does not load PGlite.
 */

/** Arbitrary constant naming Tessera's migration lock among the database's advisory locks. */
const MIGRATION_LOCK_ID = 7_253_140_042;

export const MIGRATIONS_FOLDER = serverPath('drizzle');

/** How many migrations this build ships: the journal drizzle-kit writes beside them. */
export const SHIPPED_MIGRATIONS = (
  JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }
).entries.length;

/**
 * Seconds before a connection that failed is tried again. postgres.js's default grows as 3^n / 100 over the
 * failures of the whole pool, up to 20 s: after an outage of a few seconds under load the pool waited 10-20 s
 * before using a Postgres that was back. Here: 0.1 s doubling, at most 1 s (with jitter), so work resumes
 * within about a second, while a pool of N connections makes at most about N attempts a second when it is down.
 */
export function reconnectDelaySeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.1 * 2 ** failures, 1);
}

/**
 * `timeoutMs`, for the pool that serves requests: how long a connection attempt and each statement may wait
 * for Postgres (deadline.ts); migrations are not bounded. Without it (the usage writer's thread, whose prune
 * may run long), connections time out after 10 s and statements never.
 */
export function openPostgres(
  url: string,
  max: number,
  applicationName = 'tessera',
  timeoutMs?: number,
  ownerUrl?: string,
): Database {
  const client = postgres(url, {
    max,
    connection: { application_name: applicationName },
    onnotice: () => {},
    connect_timeout: timeoutMs === undefined ? 10 : timeoutMs / 1000,
    backoff: reconnectDelaySeconds,
  });
  const unbounded = drizzlePostgres(client, { schema, casing: 'snake_case' });
  const db =
    timeoutMs === undefined
      ? unbounded
      : drizzlePostgres(withStatementDeadline(client, timeoutMs), { schema, casing: 'snake_case' });
  return {
    db,
    backgroundDb: unbounded,
    kind: 'postgres',
    url,
    migrate: async () => {
      if (ownerUrl) return migrateAsOwner(ownerUrl, roleOf(url), applicationName);
      // A role that owns nothing (the app's, when the roles are split) may not even run the migrator's
      // `create schema if not exists`: an instance started with DATABASE_URL alone checks the count first.
      if (await upToDate(client)) return;
      await migrateLocked(client).catch((err: unknown) => {
        const refused = postgresError(err);
        if (refused?.code !== '42501') throw err;
        throw new DatabaseSetupError(
          `DATABASE_URL's role may not apply this build's migrations (${refused.message}): set MIGRATION_DATABASE_URL to the tables' owner, or run \`pnpm cli database app-role\` with it first (docs/deployment.md)`,
          { cause: err },
        );
      });
    },
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * drizzle's migrator takes no lock: instances starting together would race to apply the same migration. A
 * session advisory lock, held on one reserved connection, makes them apply it one after another; the later ones
 * then find every migration recorded and do nothing. `then` runs on the lock's connection before it is let go.
 */
async function migrateLocked(client: Sql, then?: (holder: Sql) => Promise<void>): Promise<void> {
  const holder = await client.reserve();
  try {
    await holder`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgres(drizzlePostgres(client, { schema, casing: 'snake_case' }), {
      migrationsFolder: MIGRATIONS_FOLDER,
    });
    await then?.(holder);
  } finally {
    await holder`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.catch(() => {});
    holder.release();
  }
}

/** Migrates as the tables' owner, then (re)grants the app's role what the new tables need; see app-role.ts. */
async function migrateAsOwner(ownerUrl: string, appRole: string, applicationName: string): Promise<void> {
  // Two connections: the lock's, and the migrator's.
  const owner = postgres(ownerUrl, {
    max: 2,
    connection: { application_name: `${applicationName}-migrations` },
    onnotice: () => {},
  });
  try {
    await migrateLocked(owner, (holder) => grantAppRole(holder, appRole));
  } finally {
    await owner.end({ timeout: 5 });
  }
}

async function upToDate(client: Sql): Promise<boolean> {
  try {
    const [row] = await client<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    return (row?.n ?? 0) >= SHIPPED_MIGRATIONS;
  } catch {
    // No record yet (a new database), or no right to read it: the migrator decides, and says why it fails.
    return false;
  }
}

import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { serverPath } from '../lib/paths';
import type { Database } from './client';
import { withStatementDeadline } from './deadline';
import * as schema from './schema';

/**
 * PostgreSQL through postgres.js, apart from client.ts so that a thread that only writes to Postgres (the usage
 * writer) does not load PGlite.
 */

/** Arbitrary constant naming Tessera's migration lock among the database's advisory locks. */
const MIGRATION_LOCK_ID = 7_253_140_042;

export const MIGRATIONS_FOLDER = serverPath('drizzle');

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
      // drizzle's migrator takes no lock: instances starting together would race to apply the same migration.
      // A session advisory lock, held on one reserved connection, makes them apply it one after another;
      // the later ones then find every migration recorded and do nothing.
      const holder = await client.reserve();
      try {
        await holder`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        await migratePostgres(unbounded, { migrationsFolder: MIGRATIONS_FOLDER });
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

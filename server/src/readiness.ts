import { sql } from 'drizzle-orm';
import { SHIPPED_MIGRATIONS } from './db/client';
import type { Services } from './services';

export interface Readiness {
  status: 'ready' | 'degraded' | 'unavailable';
  database: 'ok' | 'unreachable';
  databaseKind: 'pglite' | 'postgres';
  migrations: { applied: number | null; expected: number };
  redis: 'not configured' | 'ok' | 'unreachable';
}

/**
 * Ready means the database answers and every migration of this build is applied. Redis being down does not
 * make an instance unready: it keeps serving with per-instance limits (modules/ratelimit/README.md), so the answer is
 * `degraded` with status 200 rather than pulling every instance out of the load balancer at once. Redis is
 * asked (a PING bounded by REDIS_COMMAND_TIMEOUT_MS) beside the database query, not read from the limiter's
 * last request.
 */
export async function checkReadiness(services: Services): Promise<Readiness> {
  const [redis, migrations] = await Promise.all([
    services.rateLimiter.probeRedis(),
    appliedMigrations(services),
  ]);
  const base = { databaseKind: services.database.kind, redis } as const;
  if (migrations === undefined) {
    return {
      ...base,
      status: 'unavailable',
      database: 'unreachable',
      migrations: { applied: null, expected: SHIPPED_MIGRATIONS },
    };
  }
  const migrated = migrations >= SHIPPED_MIGRATIONS;
  return {
    ...base,
    status: !migrated ? 'unavailable' : redis === 'unreachable' ? 'degraded' : 'ready',
    database: 'ok',
    migrations: { applied: migrations, expected: SHIPPED_MIGRATIONS },
  };
}

/** How many migrations the database has applied; undefined when it does not answer. */
async function appliedMigrations(services: Services): Promise<number | undefined> {
  try {
    const result = await services.ctx.db.execute<{ n: number | string }>(
      sql`select count(*) as n from drizzle.__drizzle_migrations`,
    );
    const rows = Array.isArray(result) ? result : (result as { rows: { n: number | string }[] }).rows;
    return Number(rows[0]?.n ?? 0);
  } catch {
    return undefined;
  }
}

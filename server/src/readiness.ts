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
 * `degraded` with status 200 rather than pulling every instance out of the load balancer at once.
 */
export async function checkReadiness(services: Services): Promise<Readiness> {
  const redis =
    services.rateLimiter.mode === 'memory'
      ? 'not configured'
      : services.rateLimiter.mode === 'redis'
        ? 'ok'
        : 'unreachable';
  const base = { databaseKind: services.database.kind, redis } as const;
  try {
    const result = await services.ctx.db.execute<{ n: number | string }>(
      sql`select count(*) as n from drizzle.__drizzle_migrations`,
    );
    const rows = Array.isArray(result) ? result : (result as { rows: { n: number | string }[] }).rows;
    const applied = Number(rows[0]?.n ?? 0);
    const migrated = applied >= SHIPPED_MIGRATIONS;
    return {
      ...base,
      status: !migrated ? 'unavailable' : redis === 'unreachable' ? 'degraded' : 'ready',
      database: 'ok',
      migrations: { applied, expected: SHIPPED_MIGRATIONS },
    };
  } catch {
    return {
      ...base,
      status: 'unavailable',
      database: 'unreachable',
      migrations: { applied: null, expected: SHIPPED_MIGRATIONS },
    };
  }
}

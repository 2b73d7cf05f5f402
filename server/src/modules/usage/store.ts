import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { apiKeys, usageEvents, usageRollups } from '../../db/schema';
import { rollupDeltas } from './rollup';
import type { KeyOwner, UsageEvent, UsageStore } from './types';

/** Rows per INSERT: well under Postgres' 65,535 bind parameters for both tables. */
const CHUNK = 1_000;

/** Usage in Postgres (or PGlite): raw events plus additive minute and hour rollups, in one transaction. */
export class PgUsageStore implements UsageStore {
  constructor(private readonly db: Db) {}

  async write(events: readonly UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    const deltas = rollupDeltas(events);
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < events.length; i += CHUNK) {
        await tx.insert(usageEvents).values(
          events.slice(i, i + CHUNK).map((e) => ({
            occurredAt: new Date(e.occurredAt),
            requestId: e.requestId,
            accountId: e.accountId,
            keyId: e.keyId,
            mode: e.mode,
            method: e.method,
            route: e.route,
            status: e.status,
            latencyMs: e.latencyMs,
            model: e.model,
            promptTokens: e.promptTokens,
            completionTokens: e.completionTokens,
            errorType: e.errorType,
            errorCode: e.errorCode,
            errorMessage: e.errorMessage,
          })),
        );
      }
      for (let i = 0; i < deltas.length; i += CHUNK) {
        await tx
          .insert(usageRollups)
          .values(deltas.slice(i, i + CHUNK))
          .onConflictDoUpdate({
            target: [
              usageRollups.accountId,
              usageRollups.granularity,
              usageRollups.bucketStart,
              usageRollups.mode,
              usageRollups.keyId,
              usageRollups.method,
              usageRollups.route,
              usageRollups.statusClass,
            ],
            set: {
              requests: sql`usage_rollups.requests + excluded.requests`,
              errors: sql`usage_rollups.errors + excluded.errors`,
              latencySumMs: sql`usage_rollups.latency_sum_ms + excluded.latency_sum_ms`,
              latencyHistogram: sql`(select array_agg(h.a + h.b order by h.i)
                from unnest(usage_rollups.latency_histogram, excluded.latency_histogram)
                with ordinality as h(a, b, i))`,
              tokenRequests: sql`usage_rollups.token_requests + excluded.token_requests`,
              promptTokens: sql`usage_rollups.prompt_tokens + excluded.prompt_tokens`,
              completionTokens: sql`usage_rollups.completion_tokens + excluded.completion_tokens`,
            },
          });
      }
    });
  }

  async resolveKeys(keyHashes: readonly string[]): Promise<Map<string, KeyOwner>> {
    const out = new Map<string, KeyOwner>();
    if (keyHashes.length === 0) return out;
    const rows = await this.db
      .select({
        keyHash: apiKeys.keyHash,
        keyId: apiKeys.id,
        accountId: apiKeys.accountId,
        mode: apiKeys.kind,
      })
      .from(apiKeys)
      .where(inArray(apiKeys.keyHash, [...new Set(keyHashes)]));
    for (const r of rows) out.set(r.keyHash, { keyId: r.keyId, accountId: r.accountId, mode: r.mode });
    return out;
  }

  async prune(before: { events: Date; minuteRollups: Date }): Promise<number> {
    // In slices, so that pruning a large backlog never holds one huge transaction.
    let total = 0;
    for (;;) {
      const result = await this.db.execute(sql`
        with gone as (
          delete from usage_events where id in (
            select id from usage_events where occurred_at < ${before.events.toISOString()}::timestamptz limit 20000)
          returning 1)
        select count(*)::int as n from gone`);
      const n = Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
      total += n;
      if (n < 20_000) break;
    }
    await this.db
      .delete(usageRollups)
      .where(and(eq(usageRollups.granularity, 'minute'), lt(usageRollups.bucketStart, before.minuteRollups)));
    return total;
  }
}

/** postgres.js returns the rows as the result; PGlite wraps them in `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';
import { apiKeys, usageDeploymentRollups, usageEvents, usageRollups } from '../../db/schema';
import { rollupBucketKey } from '../../db/schema/rollup-columns';
import { deploymentRollupDeltas } from './deployment-rollup';
import { rollupDeltas } from './rollup';
import type { KeyOwner, UsageEvent, UsageStore } from './types';

/** Rows per INSERT: well under Postgres' 65,535 bind parameters for both tables. */
const CHUNK = 1_000;
/**
 * Events per INSERT. Each statement's JSON and its write to the socket are one synchronous block of the event
 * loop (~1 ms per 100 events here); between statements, while the database works, requests go on. A 500-event
 * batch in one statement held the loop 2–5 ms at a time, and calls arriving meanwhile queued.
 */
const EVENT_CHUNK = 100;

/** Usage in Postgres (or PGlite): raw events plus additive minute and hour rollups, in one transaction. */
export class PgUsageStore implements UsageStore {
  constructor(private readonly db: Db) {}

  async write(
    events: readonly UsageEvent[],
    maybeWritten: (event: UsageEvent) => boolean = () => false,
  ): Promise<void> {
    if (events.length === 0) return;
    const suspects = events.filter(maybeWritten).map(withoutNul);
    events = events.map(withoutNul);
    await this.db.transaction(async (tx) => {
      const stored = await storedAlready(tx, suspects);
      if (stored.size > 0) events = events.filter((e) => !stored.has(identity(e)));
      const deltas = rollupDeltas(events);
      for (let i = 0; i < events.length; i += EVENT_CHUNK)
        await insertEvents(tx, events.slice(i, i + EVENT_CHUNK));
      for (let i = 0; i < deltas.length; i += CHUNK) {
        await tx
          .insert(usageRollups)
          .values(deltas.slice(i, i + CHUNK))
          .onConflictDoUpdate({
            target: [...rollupBucketKey(usageRollups), usageRollups.statusClass],
            set: {
              ...addedMeasures('usage_rollups'),
              cacheHits: sql`usage_rollups.cache_hits + excluded.cache_hits`,
              cacheMisses: sql`usage_rollups.cache_misses + excluded.cache_misses`,
              savedMicros: sql`usage_rollups.saved_micros + excluded.saved_micros`,
            },
          });
      }
      await upsertDeploymentRollups(tx, deploymentRollupDeltas(events));
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
    await this.db
      .delete(usageDeploymentRollups)
      .where(
        and(
          eq(usageDeploymentRollups.granularity, 'minute'),
          lt(usageDeploymentRollups.bucketStart, before.minuteRollups),
        ),
      );
    return total;
  }
}

/** The per-deployment rollups of a batch, added to their rows as `usage_rollups` are. */
async function upsertDeploymentRollups(
  tx: Pick<Db, 'insert'>,
  deltas: ReturnType<typeof deploymentRollupDeltas>,
): Promise<void> {
  const t = usageDeploymentRollups;
  for (let i = 0; i < deltas.length; i += CHUNK) {
    await tx
      .insert(t)
      .values(deltas.slice(i, i + CHUNK))
      .onConflictDoUpdate({
        target: [...rollupBucketKey(t), t.model, t.deployment],
        set: {
          ...addedMeasures('usage_deployment_rollups'),
        },
      });
  }
}

/**
 * What tells one stored event from another: the request id alone may be the client's and repeat. The time is
 * stored to the millisecond (a Date truncates), so it is compared truncated.
 */
function identity(e: {
  requestId: string;
  occurredAt: number;
  accountId: string;
  route: string;
  status: number;
}) {
  return `${e.requestId}\u0000${Math.trunc(e.occurredAt)}\u0000${e.accountId}\u0000${e.route}\u0000${e.status}`;
}

/** Which of these events (from writes that failed, maybe after committing) are stored already. */
async function storedAlready(db: Pick<Db, 'execute'>, events: readonly UsageEvent[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const slice = events.slice(i, i + CHUNK);
    const times = slice.map((e) => e.occurredAt);
    const rows = rowsOf<{
      request_id: string;
      ms: string | number;
      account_id: string;
      route: string;
      status: number;
    }>(
      await db.execute(sql`
        select request_id, (extract(epoch from occurred_at) * 1000)::bigint as ms, account_id, route, status
        from usage_events
        where occurred_at between ${new Date(Math.min(...times)).toISOString()}::timestamptz
                              and ${new Date(Math.max(...times)).toISOString()}::timestamptz
          and request_id in (${sql.join(
            slice.map((e) => sql`${e.requestId}`),
            sql`, `,
          )})`),
    );
    for (const r of rows) {
      found.add(
        identity({
          requestId: r.request_id,
          occurredAt: Number(r.ms),
          accountId: r.account_id,
          route: r.route,
          status: Number(r.status),
        }),
      );
    }
  }
  return found;
}

/**
 * Postgres text cannot hold NUL: it is dropped from the fields that may carry a client's text (the same event
 * when there is none, as almost always). The method, ids and mode are Tessera's own or the HTTP parser's.
 */
function withoutNul(e: UsageEvent): UsageEvent {
  if (
    !e.requestId.includes('\0') &&
    !e.route.includes('\0') &&
    !e.model?.includes('\0') &&
    !e.errorType?.includes('\0') &&
    !e.errorCode?.includes('\0') &&
    !e.errorMessage?.includes('\0')
  )
    return e;
  const drop = <T extends string | null>(v: T): T => (v === null ? v : (v.replaceAll('\0', '') as T));
  return {
    ...e,
    requestId: drop(e.requestId),
    route: drop(e.route),
    model: drop(e.model),
    errorType: drop(e.errorType),
    errorCode: drop(e.errorCode),
    errorMessage: drop(e.errorMessage),
  };
}

/**
 * One INSERT for a batch, its rows passed as a single JSON parameter. Building a multi-row VALUES list through
 * the query builder cost ~75 µs of synchronous CPU per event (a 500-event batch blocked the event loop for
 * ~35 ms, the p99 of every request around it); serialising the batch is native JSON.stringify.
 * The work left is still synchronous, so it is kept small: one-letter keys and no nulls (a row is ~200 bytes of
 * JSON, not ~360), the time as integer milliseconds (no Date, no ISO string), and NULs dropped field by field
 * before, on the few fields that can hold them, rather than by searching the batch's JSON (which took longer than
 * making it).
 */
async function insertEvents(db: Pick<Db, 'execute'>, events: readonly UsageEvent[]): Promise<void> {
  const rows = events.map((e) => ({
    t: Math.trunc(e.occurredAt),
    q: e.requestId,
    a: e.accountId,
    k: e.keyId,
    o: e.mode,
    m: e.method,
    r: e.route,
    s: e.status,
    l: e.latencyMs,
    d: e.model ?? undefined,
    g: e.deployment ?? undefined,
    p: e.promptTokens ?? undefined,
    c: e.completionTokens ?? undefined,
    u: e.costMicros ?? undefined,
    h: e.cache ?? undefined,
    v: e.savedMicros ?? undefined,
    y: e.errorType ?? undefined,
    x: e.errorCode ?? undefined,
    e: e.errorMessage ?? undefined,
  }));
  await db.execute(sql`
    insert into ${usageEvents} (occurred_at, request_id, account_id, key_id, mode, method, route, status,
      latency_ms, model, deployment, prompt_tokens, completion_tokens, cost_micros, cache, saved_micros, error_type,
      error_code, error_message)
    select timestamptz 'epoch' + t * interval '1 millisecond', q, a, k, o, m, r, s, l, d, g, p, c, u, h, v, y, x, e
    from json_to_recordset(${JSON.stringify(rows)}::json) as b(
      t bigint, q text, a text, k text, o text, m text, r text, s smallint, l real, d text, g text, p integer,
      c integer, u bigint, h text, v bigint, y text, x text, e text)`);
}

/**
 * The upsert's additions of the measures every rollup table shares (modules/usage/rollup-fold.ts): counts and sums
 * added, histograms added bucket by bucket, the largest latency kept.
 */
function addedMeasures(table: 'usage_rollups' | 'usage_deployment_rollups') {
  const t = sql.raw(table);
  return {
    requests: sql`${t}.requests + excluded.requests`,
    errors: sql`${t}.errors + excluded.errors`,
    latencySumMs: sql`${t}.latency_sum_ms + excluded.latency_sum_ms`,
    latencyHistogram: sql`(select array_agg(h.a + h.b order by h.i)
      from unnest(${t}.latency_histogram, excluded.latency_histogram)
      with ordinality as h(a, b, i))`,
    latencyMaxMs: sql`greatest(${t}.latency_max_ms, excluded.latency_max_ms)`,
    tokenRequests: sql`${t}.token_requests + excluded.token_requests`,
    promptTokens: sql`${t}.prompt_tokens + excluded.prompt_tokens`,
    completionTokens: sql`${t}.completion_tokens + excluded.completion_tokens`,
    costMicros: sql`${t}.cost_micros + excluded.cost_micros`,
  };
}

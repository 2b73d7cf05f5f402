import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * Pre-aggregated usage per minute, hour and day (UTC), maintained in the same transaction as the raw events by
 * additive upserts. The dashboard reads only these (recent errors aside).
 */
export const usageRollups = pgTable(
  'usage_rollups',
  {
    accountId: text('account_id').notNull(),
    granularity: text('granularity', { enum: ['minute', 'hour', 'day'] }).notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true, mode: 'date' }).notNull(),
    mode: text('mode', { enum: ['live', 'test'] }).notNull(),
    keyId: text('key_id').notNull(),
    method: text('method').notNull(),
    route: text('route').notNull(),
    /** 2xx, 3xx, 4xx, 429, 5xx or aborted (the client went away). */
    statusClass: text('status_class').notNull(),
    requests: integer('requests').notNull(),
    errors: integer('errors').notNull(),
    latencySumMs: doublePrecision('latency_sum_ms').notNull(),
    /** Counts per fixed latency bucket (modules/usage/histogram.ts), for percentiles. */
    latencyHistogram: integer('latency_histogram').array().notNull(),
    /** The largest latency counted, so that no percentile is reported above it. */
    latencyMaxMs: doublePrecision('latency_max_ms').notNull(),
    /** Requests that reported token usage: tokens are null, not 0, where none did. */
    tokenRequests: integer('token_requests').notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
    /** Summed cost of the priced requests, in micro-units of the catalogue's currency (modules/models/pricing.ts). */
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull().default(0),
    /** Requests answered from the response cache, and those it was asked for and could not answer. */
    cacheHits: integer('cache_hits').notNull().default(0),
    cacheMisses: integer('cache_misses').notNull().default(0),
    /** What the hits' answers cost when the model made them: the money the cache saved, in micro-units. */
    savedMicros: bigint('saved_micros', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: 'usage_rollups_pk',
      columns: [t.accountId, t.granularity, t.bucketStart, t.mode, t.keyId, t.method, t.route, t.statusClass],
    }),
    check('usage_rollups_granularity_check', sql`${t.granularity} in ('minute', 'hour', 'day')`),
  ],
);

export type UsageRollupRow = typeof usageRollups.$inferSelect;

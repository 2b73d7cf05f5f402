import { sql } from 'drizzle-orm';
import { bigint, check, doublePrecision, integer, type PgColumn, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The columns both usage rollup tables share (usage-rollups.ts, usage-deployment-rollups.ts): one fold
 * (modules/usage/rollup-fold.ts) writes both, so what a bucket is and what it measures are written once here.
 */

/** The bucket a row adds up: whose traffic, at what granularity, from when, on which key and route. */
export const rollupBucketColumns = () => ({
  accountId: text('account_id').notNull(),
  granularity: text('granularity', { enum: ['minute', 'hour', 'day'] }).notNull(),
  bucketStart: timestamp('bucket_start', { withTimezone: true, mode: 'date' }).notNull(),
  mode: text('mode', { enum: ['live', 'test'] }).notNull(),
  keyId: text('key_id').notNull(),
  method: text('method').notNull(),
  route: text('route').notNull(),
});

/** What a row adds up: requests, errors, latency (sum, histogram, max) and tokens. */
export const rollupMeasureColumns = () => ({
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
});

/** Minute, hour or day, and nothing else, in the database too. */
export const granularityCheck = (table: string, granularity: PgColumn) =>
  check(`${table}_granularity_check`, sql`${granularity} in ('minute', 'hour', 'day')`);

type BucketColumns = Record<keyof ReturnType<typeof rollupBucketColumns>, PgColumn>;

/** The bucket's columns in key order: the start of each table's primary key and of its upserts' target. */
export const rollupBucketKey = (t: BucketColumns): [PgColumn, ...PgColumn[]] => [
  t.accountId,
  t.granularity,
  t.bucketStart,
  t.mode,
  t.keyId,
  t.method,
  t.route,
];

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
 * Pre-aggregated traffic of the requests that named a model, per minute, hour and day (UTC), by model and by the
 * deployment that answered: the dashboard's per-deployment panel reads only these. A table of its own rather than
 * two more key columns of `usage_rollups`: the overview's other queries keep reading rows that are not split by
 * model, and requests without a model (models list, code analysis, search) add no row here. Written in the same
 * transaction as the raw events and `usage_rollups`, by the same additive upserts.
 */
export const usageDeploymentRollups = pgTable(
  'usage_deployment_rollups',
  {
    accountId: text('account_id').notNull(),
    granularity: text('granularity', { enum: ['minute', 'hour', 'day'] }).notNull(),
    bucketStart: timestamp('bucket_start', { withTimezone: true, mode: 'date' }).notNull(),
    mode: text('mode', { enum: ['live', 'test'] }).notNull(),
    keyId: text('key_id').notNull(),
    method: text('method').notNull(),
    route: text('route').notNull(),
    model: text('model').notNull(),
    /** Who answered (`x-tessera-provider`); '' when the call was refused before any deployment was called. */
    deployment: text('deployment').notNull(),
    requests: integer('requests').notNull(),
    errors: integer('errors').notNull(),
    latencySumMs: doublePrecision('latency_sum_ms').notNull(),
    /** Counts per fixed latency bucket (modules/usage/histogram.ts), for percentiles. */
    latencyHistogram: integer('latency_histogram').array().notNull(),
    latencyMaxMs: doublePrecision('latency_max_ms').notNull(),
    tokenRequests: integer('token_requests').notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({
      name: 'usage_deployment_rollups_pk',
      columns: [
        t.accountId,
        t.granularity,
        t.bucketStart,
        t.mode,
        t.keyId,
        t.method,
        t.route,
        t.model,
        t.deployment,
      ],
    }),
    check('usage_deployment_rollups_granularity_check', sql`${t.granularity} in ('minute', 'hour', 'day')`),
  ],
);

export type UsageDeploymentRollupRow = typeof usageDeploymentRollups.$inferSelect;

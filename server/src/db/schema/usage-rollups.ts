import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import {
  granularityCheck,
  rollupBucketColumns,
  rollupBucketKey,
  rollupMeasureColumns,
} from './rollup-columns';

/**
 * Pre-aggregated usage per minute, hour and day (UTC), maintained in the same transaction as the raw events by
 * additive upserts. The dashboard reads only these (recent errors aside).
 */
export const usageRollups = pgTable(
  'usage_rollups',
  {
    ...rollupBucketColumns(),
    /** 2xx, 3xx, 4xx, 429, 5xx or aborted (the client went away). */
    statusClass: text('status_class').notNull(),
    ...rollupMeasureColumns(),
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
      columns: [...rollupBucketKey(t), t.statusClass],
    }),
    granularityCheck('usage_rollups', t.granularity),
  ],
);

export type UsageRollupRow = typeof usageRollups.$inferSelect;

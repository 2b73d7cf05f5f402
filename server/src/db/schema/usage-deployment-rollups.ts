import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import {
  granularityCheck,
  rollupBucketColumns,
  rollupBucketKey,
  rollupMeasureColumns,
} from './rollup-columns';

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
    ...rollupBucketColumns(),
    model: text('model').notNull(),
    /** Who answered (`x-tessera-provider`); '' when the call was refused before any deployment was called. */
    deployment: text('deployment').notNull(),
    ...rollupMeasureColumns(),
    costMicros: bigint('cost_micros', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({
      name: 'usage_deployment_rollups_pk',
      columns: [...rollupBucketKey(t), t.model, t.deployment],
    }),
    granularityCheck('usage_deployment_rollups', t.granularity),
  ],
);

export type UsageDeploymentRollupRow = typeof usageDeploymentRollups.$inferSelect;

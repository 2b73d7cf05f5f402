import { emptyMeasures, foldRollups, type RollupMeasures, type RollupShape } from './rollup-fold';
import type { UsageEvent } from './types';

/** One row of `usage_deployment_rollups`: a model's traffic through one deployment in one bucket. */
export interface DeploymentRollupDelta extends RollupMeasures {
  accountId: string;
  mode: 'live' | 'test';
  keyId: string;
  method: string;
  route: string;
  model: string;
  /** '' for a call refused before any deployment was called (a key column cannot be null). */
  deployment: string;
}

const SHAPE: RollupShape<DeploymentRollupDelta> = {
  // Events without a model (model lists, code analysis, search, refusals before the body was read) have no row.
  group: (e) =>
    e.model === null
      ? undefined
      : `${e.accountId}\u0000${e.mode}\u0000${e.keyId}\u0000${e.method}\u0000${e.route}\u0000${e.model}\u0000${e.deployment ?? ''}`,
  create: (e, bucketMs) => ({
    ...emptyMeasures(bucketMs),
    accountId: e.accountId,
    mode: e.mode,
    keyId: e.keyId,
    method: e.method,
    route: e.route,
    model: e.model ?? '',
    deployment: e.deployment ?? '',
  }),
  sortKey: (d) =>
    [
      d.accountId,
      d.granularity,
      d.bucketStart.getTime(),
      d.mode,
      d.keyId,
      d.method,
      d.route,
      d.model,
      d.deployment,
    ].join('\u0000'),
};

/** A batch folded into `usage_deployment_rollups` deltas (minute, hour, day), in lock order (rollup-fold.ts). */
export function deploymentRollupDeltas(events: readonly UsageEvent[]): DeploymentRollupDelta[] {
  return foldRollups(events, SHAPE);
}

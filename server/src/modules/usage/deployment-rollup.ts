import { addInto, bucketOf, emptyHistogram } from './histogram';
import { GRANULARITY_MS, type Granularity, isErrorStatus } from './rollup';
import type { UsageEvent } from './types';

/** One row of `usage_deployment_rollups`: a model's traffic through one deployment in one bucket. */
export interface DeploymentRollupDelta {
  accountId: string;
  granularity: Granularity;
  bucketStart: Date;
  mode: 'live' | 'test';
  keyId: string;
  method: string;
  route: string;
  model: string;
  /** '' for a call refused before any deployment was called (a key column cannot be null). */
  deployment: string;
  requests: number;
  errors: number;
  latencySumMs: number;
  latencyHistogram: number[];
  latencyMaxMs: number;
  tokenRequests: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

/**
 * Folds the events that named a model into one delta per deployment rollup row (minute, hour, day), sorted by
 * key like `rollupDeltas` so that concurrent writers lock rows in one order. Events without a model (model
 * lists, code analysis, search, refusals before the body was read) have no row here.
 */
export function deploymentRollupDeltas(events: readonly UsageEvent[]): DeploymentRollupDelta[] {
  const minutes = new Map<string, DeploymentRollupDelta>();
  const width = GRANULARITY_MS.minute;
  for (const e of events) {
    if (e.model === null) continue;
    const bucketMs = Math.floor(e.occurredAt / width) * width;
    const deployment = e.deployment ?? '';
    const key = `${e.accountId}\u0000${e.mode}\u0000${e.keyId}\u0000${e.method}\u0000${e.route}\u0000${e.model}\u0000${deployment}\u0000${bucketMs}`;
    let d = minutes.get(key);
    if (!d) {
      d = emptyDelta(e, e.model, deployment, bucketMs);
      minutes.set(key, d);
    }
    d.requests += 1;
    if (isErrorStatus(e.status)) d.errors += 1;
    d.latencySumMs += e.latencyMs;
    if (e.latencyMs > d.latencyMaxMs) d.latencyMaxMs = e.latencyMs;
    const b = bucketOf(e.latencyMs);
    d.latencyHistogram[b] = (d.latencyHistogram[b] ?? 0) + 1;
    if (e.promptTokens !== null || e.completionTokens !== null) {
      d.tokenRequests += 1;
      d.promptTokens += e.promptTokens ?? 0;
      d.completionTokens += e.completionTokens ?? 0;
    }
    d.costMicros += e.costMicros ?? 0;
  }
  const byKey = new Map<string, DeploymentRollupDelta>();
  for (const minute of minutes.values()) {
    byKey.set(sortKey(minute), minute);
    for (const granularity of ['hour', 'day'] as const) {
      const w = GRANULARITY_MS[granularity];
      const coarse = {
        ...minute,
        granularity,
        bucketStart: new Date(Math.floor(minute.bucketStart.getTime() / w) * w),
      };
      const key = sortKey(coarse);
      const d = byKey.get(key);
      if (!d) {
        byKey.set(key, { ...coarse, latencyHistogram: [...minute.latencyHistogram] });
        continue;
      }
      d.requests += minute.requests;
      d.errors += minute.errors;
      d.latencySumMs += minute.latencySumMs;
      d.latencyMaxMs = Math.max(d.latencyMaxMs, minute.latencyMaxMs);
      addInto(d.latencyHistogram, minute.latencyHistogram);
      d.tokenRequests += minute.tokenRequests;
      d.promptTokens += minute.promptTokens;
      d.completionTokens += minute.completionTokens;
      d.costMicros += minute.costMicros;
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

/** The order rows are locked in: the same on every instance (the primary key's column order). */
function sortKey(d: DeploymentRollupDelta): string {
  return [
    d.accountId,
    d.granularity,
    d.bucketStart.getTime(),
    d.mode,
    d.keyId,
    d.method,
    d.route,
    d.model,
    d.deployment,
  ].join('\u0000');
}

function emptyDelta(
  e: UsageEvent,
  model: string,
  deployment: string,
  bucketMs: number,
): DeploymentRollupDelta {
  return {
    accountId: e.accountId,
    granularity: 'minute',
    bucketStart: new Date(bucketMs),
    mode: e.mode,
    keyId: e.keyId,
    method: e.method,
    route: e.route,
    model,
    deployment,
    requests: 0,
    errors: 0,
    latencySumMs: 0,
    latencyHistogram: emptyHistogram(),
    latencyMaxMs: 0,
    tokenRequests: 0,
    promptTokens: 0,
    completionTokens: 0,
    costMicros: 0,
  };
}

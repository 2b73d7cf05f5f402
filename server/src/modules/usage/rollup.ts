import { emptyMeasures, foldRollups, type RollupMeasures, type RollupShape } from './rollup-fold';
import { ABORTED_STATUS, type UsageEvent } from './types';

export { GRANULARITY_MS, type Granularity, isErrorStatus } from './rollup-fold';

/** 2xx, 3xx, 4xx, 429 (kept apart: the dashboard charts it), 5xx, or aborted. */
export function statusClassOf(status: number): string {
  if (status === ABORTED_STATUS) return 'aborted';
  if (status === 429) return '429';
  return `${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx`;
}

/** One row of `usage_rollups`: a key's traffic on one endpoint with one status class in one bucket. */
export interface RollupDelta extends RollupMeasures {
  accountId: string;
  mode: 'live' | 'test';
  keyId: string;
  method: string;
  route: string;
  statusClass: string;
  cacheHits: number;
  cacheMisses: number;
  savedMicros: number;
}

const SHAPE: RollupShape<RollupDelta> = {
  group: (e) =>
    `${e.accountId}\u0000${e.mode}\u0000${e.keyId}\u0000${e.method}\u0000${e.route}\u0000${statusClassOf(e.status)}`,
  create: (e, bucketMs) => ({
    ...emptyMeasures(bucketMs),
    accountId: e.accountId,
    mode: e.mode,
    keyId: e.keyId,
    method: e.method,
    route: e.route,
    statusClass: statusClassOf(e.status),
    cacheHits: 0,
    cacheMisses: 0,
    savedMicros: 0,
  }),
  count(d, e) {
    if (e.cache === 'hit') {
      d.cacheHits += 1;
      d.savedMicros += e.savedMicros ?? 0;
    } else if (e.cache === 'miss') d.cacheMisses += 1;
  },
  add(into, minute) {
    into.cacheHits += minute.cacheHits;
    into.cacheMisses += minute.cacheMisses;
    into.savedMicros += minute.savedMicros;
  },
  sortKey: (d) =>
    [
      d.accountId,
      d.granularity,
      d.bucketStart.getTime(),
      d.mode,
      d.keyId,
      d.method,
      d.route,
      d.statusClass,
    ].join('\u0000'),
};

/** A batch folded into `usage_rollups` deltas (minute, hour, day), in lock order (rollup-fold.ts). */
export function rollupDeltas(events: readonly UsageEvent[]): RollupDelta[] {
  return foldRollups(events, SHAPE);
}

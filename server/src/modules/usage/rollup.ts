import { addInto, bucketOf, emptyHistogram } from './histogram';
import { ABORTED_STATUS, type UsageEvent } from './types';

export type Granularity = 'minute' | 'hour' | 'day';
export const GRANULARITY_MS: Record<Granularity, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** 2xx, 3xx, 4xx, 429 (kept apart: the dashboard charts it), 5xx, or aborted. */
export function statusClassOf(status: number): string {
  if (status === ABORTED_STATUS) return 'aborted';
  if (status === 429) return '429';
  return `${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx`;
}

export function isErrorStatus(status: number): boolean {
  return status >= 400;
}

export interface RollupDelta {
  accountId: string;
  granularity: Granularity;
  bucketStart: Date;
  mode: 'live' | 'test';
  keyId: string;
  method: string;
  route: string;
  statusClass: string;
  requests: number;
  errors: number;
  latencySumMs: number;
  latencyHistogram: number[];
  /** The largest latency counted: a percentile is never reported above it. */
  latencyMaxMs: number;
  tokenRequests: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
  cacheHits: number;
  cacheMisses: number;
  savedMicros: number;
}

/**
 * Folds a batch into one delta per rollup row (minute, hour and day), sorted by key so that concurrent writers
 * lock rows in the same order and cannot deadlock. Events are folded into minute rows first (one key per
 * event), then minute rows into hour and day rows: a 500-event batch took milliseconds of the event loop when
 * every event built three keys.
 */
export function rollupDeltas(events: readonly UsageEvent[]): RollupDelta[] {
  const minutes = new Map<string, RollupDelta>();
  const width = GRANULARITY_MS.minute;
  for (const e of events) {
    const statusClass = statusClassOf(e.status);
    const bucketMs = Math.floor(e.occurredAt / width) * width;
    const key = `${e.accountId}\u0000${e.mode}\u0000${e.keyId}\u0000${e.method}\u0000${e.route}\u0000${statusClass}\u0000${bucketMs}`;
    let d = minutes.get(key);
    if (!d) {
      d = emptyDelta(e, statusClass, 'minute', bucketMs);
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
    if (e.cache === 'hit') {
      d.cacheHits += 1;
      d.savedMicros += e.savedMicros ?? 0;
    } else if (e.cache === 'miss') d.cacheMisses += 1;
  }
  const byKey = new Map<string, RollupDelta>();
  for (const minute of minutes.values()) {
    byKey.set(sortKey(minute), minute);
    for (const granularity of ['hour', 'day'] as const) {
      const w = GRANULARITY_MS[granularity];
      const bucketMs = Math.floor(minute.bucketStart.getTime() / w) * w;
      const coarse = { ...minute, granularity, bucketStart: new Date(bucketMs) };
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
      d.cacheHits += minute.cacheHits;
      d.cacheMisses += minute.cacheMisses;
      d.savedMicros += minute.savedMicros;
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

/** The order rows are locked in: the same on every instance. */
function sortKey(d: RollupDelta): string {
  return [
    d.accountId,
    d.granularity,
    d.bucketStart.getTime(),
    d.mode,
    d.keyId,
    d.method,
    d.route,
    d.statusClass,
  ].join('\u0000');
}

function emptyDelta(
  e: UsageEvent,
  statusClass: string,
  granularity: Granularity,
  bucketMs: number,
): RollupDelta {
  return {
    accountId: e.accountId,
    granularity,
    bucketStart: new Date(bucketMs),
    mode: e.mode,
    keyId: e.keyId,
    method: e.method,
    route: e.route,
    statusClass,
    requests: 0,
    errors: 0,
    latencySumMs: 0,
    latencyHistogram: emptyHistogram(),
    latencyMaxMs: 0,
    tokenRequests: 0,
    promptTokens: 0,
    completionTokens: 0,
    costMicros: 0,
    cacheHits: 0,
    cacheMisses: 0,
    savedMicros: 0,
  };
}

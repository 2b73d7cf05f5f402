import { bucketOf, emptyHistogram } from './histogram';
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
  tokenRequests: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Folds a batch into one delta per rollup row (minute, hour and day), sorted by key so that concurrent writers
 * lock rows in the same order and cannot deadlock.
 */
export function rollupDeltas(events: readonly UsageEvent[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const e of events) {
    const statusClass = statusClassOf(e.status);
    for (const granularity of ['minute', 'hour', 'day'] as const) {
      const width = GRANULARITY_MS[granularity];
      const bucketMs = Math.floor(e.occurredAt / width) * width;
      const key = [e.accountId, granularity, bucketMs, e.mode, e.keyId, e.method, e.route, statusClass].join(
        '\u0000',
      );
      let d = byKey.get(key);
      if (!d) {
        d = {
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
          tokenRequests: 0,
          promptTokens: 0,
          completionTokens: 0,
        };
        byKey.set(key, d);
      }
      d.requests += 1;
      if (isErrorStatus(e.status)) d.errors += 1;
      d.latencySumMs += e.latencyMs;
      const b = bucketOf(e.latencyMs);
      d.latencyHistogram[b] = (d.latencyHistogram[b] ?? 0) + 1;
      if (e.promptTokens !== null || e.completionTokens !== null) {
        d.tokenRequests += 1;
        d.promptTokens += e.promptTokens ?? 0;
        d.completionTokens += e.completionTokens ?? 0;
      }
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

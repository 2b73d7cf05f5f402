import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows';
import { HISTOGRAM_SIZE, quantile } from '../usage';
import { HISTOGRAM_SUMS, histogramOf, latencyMaxOf, num, rollupWhere, type UsageQuery } from './filter';

export interface UsagePoint {
  start: Date;
  requests: number;
  /** Successful responses (2xx and 3xx). */
  status2xx: number;
  /** Client errors other than 429. */
  status4xx: number;
  status429: number;
  status5xx: number;
  /** The client went away before the response ended. */
  aborted: number;
  tokens: number;
  /** Cost in micro-units of the catalogue's currency. */
  costMicros: number;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
}

export interface UsageSeries {
  bucketSeconds: number;
  points: UsagePoint[];
}

function emptyPoint(
  start: number,
): UsagePoint & { histogram: number[]; latency: number; latencyMax: number } {
  return {
    start: new Date(start),
    requests: 0,
    status2xx: 0,
    status4xx: 0,
    status429: 0,
    status5xx: 0,
    aborted: 0,
    tokens: 0,
    costMicros: 0,
    averageLatencyMs: null,
    p95LatencyMs: null,
    histogram: new Array<number>(HISTOGRAM_SIZE).fill(0),
    latency: 0,
    latencyMax: 0,
  };
}

/** The period in buckets aligned to UTC multiples of the bucket size, every bucket present (zeros included). */
export async function usageTimeseries({ ctx, scope, period }: UsageQuery): Promise<UsageSeries> {
  const step = period.bucketMs;
  const where = rollupWhere(scope, period.granularity, period.from, period.to);
  const bucket = sql`floor(extract(epoch from bucket_start) * 1000 / ${step})::bigint`;
  const byClass = await ctx.db.execute(sql`
    select ${bucket} as b, status_class as c, sum(requests) as n, sum(latency_sum_ms) as latency,
           sum(prompt_tokens + completion_tokens) as tokens, sum(cost_micros) as cost, ${HISTOGRAM_SUMS}
    from usage_rollups where ${where} group by 1, 2`);
  const first = Math.floor(period.from.getTime() / step) * step;
  const points = new Map<number, ReturnType<typeof emptyPoint>>();
  for (let t = first; t < period.to.getTime(); t += step) points.set(t / step, emptyPoint(t));
  for (const r of rowsOf<Record<string, unknown>>(byClass)) {
    const p = points.get(num(r.b));
    if (!p) continue;
    const n = num(r.n);
    p.requests += n;
    p.latency += num(r.latency);
    p.tokens += num(r.tokens);
    p.costMicros += num(r.cost);
    const h = histogramOf(r);
    for (let i = 0; i < h.length; i++) p.histogram[i] = (p.histogram[i] ?? 0) + (h[i] ?? 0);
    p.latencyMax = Math.max(p.latencyMax, latencyMaxOf(r) ?? 0);
    switch (r.c) {
      case '429':
        p.status429 += n;
        break;
      case '4xx':
        p.status4xx += n;
        break;
      case '5xx':
        p.status5xx += n;
        break;
      case 'aborted':
        p.aborted += n;
        break;
      default:
        p.status2xx += n;
    }
  }
  return {
    bucketSeconds: step / 1000,
    points: [...points.values()].map(({ histogram, latency, latencyMax, ...p }) => ({
      ...p,
      averageLatencyMs: p.requests === 0 ? null : latency / p.requests,
      p95LatencyMs: quantile(histogram, 0.95, latencyMax),
    })),
  };
}

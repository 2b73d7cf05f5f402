import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { rowsOf } from '../../db/rows';
import { type Granularity, quantile } from '../usage';
import {
  HISTOGRAM_SUMS,
  histogramOf,
  latencyMaxOf,
  num,
  rollupWhere,
  type UsageQuery,
  type UsageScope,
} from './filter';

export interface UsageFigures {
  totalRequests: number;
  /** Share of requests below 400 (0..1); null without requests. */
  successRate: number | null;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
  totalTokens: number;
  /** Cost of the priced requests, in micro-units of the catalogue's currency. */
  totalCostMicros: number;
  /** Requests answered from the response cache (modules/cache), and those it was asked for and could not answer. */
  cacheHits: number;
  cacheMisses: number;
  /** What the hits' answers cost when the model made them: the money the cache saved, in micro-units. */
  savedMicros: number;
}

export interface UsageChange {
  /** Relative changes (0.25 = +25 %); null when the previous figure is zero or absent. */
  totalRequests: number | null;
  averageLatencyMs: number | null;
  p95LatencyMs: number | null;
  totalTokens: number | null;
  totalCostMicros: number | null;
  /** Difference in percentage points of the success rate (0.02 = +2 points). */
  successRate: number | null;
}

export interface UsageSummary extends UsageFigures {
  previous: UsageFigures;
  change: UsageChange;
}

/** Totals for one range from the rollups: counts, tokens and the merged latency histogram. */
export async function figuresFor(
  ctx: Pick<Ctx, 'db'>,
  scope: UsageScope,
  granularity: Granularity,
  from: Date,
  to: Date,
): Promise<UsageFigures> {
  const where = rollupWhere(scope, granularity, from, to);
  const [totals] = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      select coalesce(sum(requests), 0) as requests, coalesce(sum(errors), 0) as errors,
             coalesce(sum(latency_sum_ms), 0) as latency,
             coalesce(sum(prompt_tokens + completion_tokens), 0) as tokens,
             coalesce(sum(cost_micros), 0) as cost, coalesce(sum(cache_hits), 0) as cache_hits,
             coalesce(sum(cache_misses), 0) as cache_misses, coalesce(sum(saved_micros), 0) as saved,
             ${HISTOGRAM_SUMS}
      from usage_rollups where ${where}`),
  );
  const histogram = histogramOf(totals);
  const requests = num(totals?.requests);
  return {
    totalRequests: requests,
    successRate: requests === 0 ? null : (requests - num(totals?.errors)) / requests,
    averageLatencyMs: requests === 0 ? null : num(totals?.latency) / requests,
    p95LatencyMs: quantile(histogram, 0.95, latencyMaxOf(totals)),
    totalTokens: num(totals?.tokens),
    totalCostMicros: num(totals?.cost),
    cacheHits: num(totals?.cache_hits),
    cacheMisses: num(totals?.cache_misses),
    savedMicros: num(totals?.saved),
  };
}

function relative(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null;
  return (now - before) / before;
}

export async function usageSummary({ ctx, scope, period }: UsageQuery): Promise<UsageSummary> {
  const [current, previous] = await Promise.all([
    figuresFor(ctx, scope, period.granularity, period.from, period.to),
    figuresFor(ctx, scope, period.granularity, period.previousFrom, period.from),
  ]);
  return {
    ...current,
    previous,
    change: {
      totalRequests: relative(current.totalRequests, previous.totalRequests),
      averageLatencyMs: relative(current.averageLatencyMs, previous.averageLatencyMs),
      p95LatencyMs: relative(current.p95LatencyMs, previous.p95LatencyMs),
      totalTokens: relative(current.totalTokens, previous.totalTokens),
      totalCostMicros: relative(current.totalCostMicros, previous.totalCostMicros),
      successRate:
        current.successRate === null || previous.successRate === null
          ? null
          : current.successRate - previous.successRate,
    },
  };
}

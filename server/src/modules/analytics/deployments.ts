import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows';
import { quantile } from '../usage';
import { HISTOGRAM_SUMS, histogramOf, latencyMaxOf, num, rollupWhere, type UsageQuery } from './filter';

/** The most rows `usageByDeployment` returns: a catalogue's model × deployment pairs, with room for old names. */
export const DEPLOYMENT_ROWS_MAX = 100;

export interface DeploymentUsage {
  model: string;
  /** Who answered (`x-tessera-provider`); null for calls refused before any deployment was called. */
  deployment: string | null;
  requests: number;
  errors: number;
  successRate: number;
  averageLatencyMs: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  /** Null when none of the calls reported token usage. */
  tokens: number | null;
  /** Cost in micro-units of the catalogue's currency; null like `tokens`. */
  costMicros: number | null;
}

export interface DeploymentUsageList {
  rows: DeploymentUsage[];
  /** True when the period had more model × deployment pairs than DEPLOYMENT_ROWS_MAX (the quietest left out). */
  truncated: boolean;
}

/**
 * One row per model and deployment that answered it, busiest first: one aggregate over
 * `usage_deployment_rollups` through its primary key (account, granularity, bucket), like the endpoint table,
 * so its cost follows the rollup rows of the period, not the millions of raw events behind them. Percentiles
 * come from each group's merged latency histogram.
 */
export async function usageByDeployment({ ctx, scope, period }: UsageQuery): Promise<DeploymentUsageList> {
  const rows = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      select model, deployment, sum(requests) as requests, sum(errors) as errors,
             sum(latency_sum_ms) as latency, sum(token_requests) as token_requests,
             sum(prompt_tokens + completion_tokens) as tokens, sum(cost_micros) as cost, ${HISTOGRAM_SUMS}
      from usage_deployment_rollups where ${rollupWhere(scope, period.granularity, period.from, period.to)}
      group by model, deployment
      order by sum(requests) desc, model asc, deployment asc
      limit ${DEPLOYMENT_ROWS_MAX + 1}`),
  );
  return {
    rows: rows.slice(0, DEPLOYMENT_ROWS_MAX).map((r) => {
      const requests = num(r.requests);
      const errors = num(r.errors);
      const histogram = histogramOf(r);
      const max = latencyMaxOf(r);
      const priced = num(r.token_requests) > 0;
      return {
        model: String(r.model),
        deployment: r.deployment === '' ? null : String(r.deployment),
        requests,
        errors,
        successRate: (requests - errors) / requests,
        averageLatencyMs: num(r.latency) / requests,
        p50LatencyMs: quantile(histogram, 0.5, max),
        p95LatencyMs: quantile(histogram, 0.95, max),
        tokens: priced ? num(r.tokens) : null,
        costMicros: priced ? num(r.cost) : null,
      };
    }),
    truncated: rows.length > DEPLOYMENT_ROWS_MAX,
  };
}

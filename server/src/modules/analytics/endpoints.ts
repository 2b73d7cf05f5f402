import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows';
import { num, rollupWhere, type UsageQuery } from './filter';

export interface EndpointUsage {
  method: string;
  /** The route template, e.g. `/v1/models/:id`. */
  path: string;
  requests: number;
  averageLatencyMs: number;
  successRate: number;
  /** Null where the endpoint reports no token usage (e.g. /v1/models). */
  tokens: number | null;
  /** Cost in micro-units of the catalogue's currency; null like `tokens`. */
  costMicros: number | null;
}

/** One row per method and route template, busiest first. */
export async function usageByEndpoint({ ctx, scope, period }: UsageQuery): Promise<EndpointUsage[]> {
  const rows = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      select method, route, sum(requests) as requests, sum(errors) as errors, sum(latency_sum_ms) as latency,
             sum(token_requests) as token_requests, sum(prompt_tokens + completion_tokens) as tokens,
             sum(cost_micros) as cost
      from usage_rollups where ${rollupWhere(scope, period.granularity, period.from, period.to)}
      group by method, route
      order by sum(requests) desc, route asc, method asc`),
  );
  return rows.map((r) => {
    const requests = num(r.requests);
    return {
      method: String(r.method),
      path: String(r.route),
      requests,
      averageLatencyMs: num(r.latency) / requests,
      successRate: (requests - num(r.errors)) / requests,
      tokens: num(r.token_requests) > 0 ? num(r.tokens) : null,
      costMicros: num(r.token_requests) > 0 ? num(r.cost) : null,
    };
  });
}

import { maskKey } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows';
import { checkPageSize, failedRequestsWhere, num, type UsageQuery } from './filter';

/** Identical failures of a period: the same status, code, message, key, endpoint and deployment. */
export interface ErrorGroup {
  status: number;
  code: string | null;
  type: string | null;
  message: string | null;
  method: string;
  path: string;
  /** The deployment (or provider) that failed (`x-tessera-provider`); null when no model was called. */
  deployment: string | null;
  /** `sk_live_…a1b2`; null when the key no longer exists. */
  maskedKey: string | null;
  count: number;
  lastSeen: Date;
  /** The `x-request-id` of the latest one. */
  lastRequestId: string;
}

/**
 * How many of the period's latest errors are grouped: the work of one call is bounded (an index range scan of
 * at most this many rows) whatever an account's error rate; the answer says when the cap was reached.
 */
export const GROUPED_ERRORS_MAX = 10_000;

export interface ErrorGroups {
  groups: ErrorGroup[];
  /** True when the period has more errors than were grouped (the oldest are left out). */
  truncated: boolean;
}

/** The period's failed requests grouped, the most recently seen group first. */
export async function errorGroups({
  ctx,
  scope,
  period,
  first,
}: UsageQuery & {
  first: number;
}): Promise<ErrorGroups> {
  checkPageSize(first);
  const parts = failedRequestsWhere(scope, period);
  const rows = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      with latest as (
        select e.occurred_at, e.id, e.request_id, e.status, e.error_code, e.error_type, e.error_message,
               e.key_id, e.method, e.route, e.deployment
        from usage_events e
        where ${sql.join(parts, sql` and `)}
        order by e.occurred_at desc nulls last, e.id desc nulls last
        limit ${GROUPED_ERRORS_MAX + 1}
      ), grouped as (
        select status, error_code, error_message, key_id, method, route, deployment, count(*) as n,
               max(error_type) as error_type,
               (array_agg(request_id order by occurred_at desc, id desc))[1] as last_request_id,
               max(occurred_at) as last_seen
        from (select * from latest order by occurred_at desc, id desc limit ${GROUPED_ERRORS_MAX}) capped
        group by status, error_code, error_message, key_id, method, route, deployment
      )
      select g.*, to_char(g.last_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at,
             k.kind, k.last4, (select count(*) from latest) as scanned
      from grouped g
      left join api_keys k on k.id = g.key_id and k.account_id = ${scope.accountId}
      order by g.last_seen desc, g.n desc
      limit ${first}`),
  );
  return {
    truncated: rows.some((r) => num(r.scanned) > GROUPED_ERRORS_MAX),
    groups: rows.map((r) => ({
      status: num(r.status),
      code: (r.error_code as string | null) ?? null,
      type: (r.error_type as string | null) ?? null,
      message: (r.error_message as string | null) ?? null,
      method: String(r.method),
      path: String(r.route),
      deployment: (r.deployment as string | null) ?? null,
      maskedKey: r.kind && r.last4 ? maskKey(r.kind === 'live' ? 'live' : 'test', String(r.last4)) : null,
      count: num(r.n),
      lastSeen: new Date(String(r.at)),
      lastRequestId: String(r.last_request_id),
    })),
  };
}

import { maskKey } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/rows';
import { ServiceError } from '../../errors';
import { checkPageSize, failedRequestsWhere, num, type UsageQuery } from './filter';

export interface RecentError {
  /** Opaque cursor of this row (pass as `after` to continue after it). */
  cursor: string;
  requestId: string;
  status: number;
  method: string;
  path: string;
  message: string | null;
  code: string | null;
  type: string | null;
  /** Who answered, or last failed, the model call (`x-tessera-provider`); null when no model was called. */
  deployment: string | null;
  occurredAt: Date;
  /** `sk_live_…a1b2`; null when the key no longer exists. */
  maskedKey: string | null;
}

export interface RecentErrorsPage {
  errors: RecentError[];
  hasNextPage: boolean;
}

function encodeCursor(occurredAt: string, id: number): string {
  return Buffer.from(JSON.stringify([occurredAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): { occurredAt: string; id: number } {
  try {
    const [occurredAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof occurredAt === 'string' && !Number.isNaN(Date.parse(occurredAt)) && Number.isSafeInteger(id)) {
      return { occurredAt, id: id as number };
    }
  } catch {
    // fall through to the error below
  }
  throw new ServiceError('invalid_request', 'The `after` cursor is not one this API returned.', {
    param: 'after',
  });
}

/** Failed requests of the period, newest first, by keyset pagination on (occurred_at, id). */
export async function recentErrors({
  ctx,
  scope,
  period,
  first,
  after,
}: UsageQuery & {
  first: number;
  after?: string | null | undefined;
}): Promise<RecentErrorsPage> {
  checkPageSize(first);
  const parts = failedRequestsWhere(scope, period);
  if (after) {
    const c = decodeCursor(after);
    parts.push(sql`(e.occurred_at, e.id) < (${c.occurredAt}::timestamptz, ${c.id})`);
  }
  const rows = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      select e.id, to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at,
             e.request_id, e.status, e.method, e.route, e.error_message, e.error_code, e.error_type,
             e.deployment,
             k.kind, k.last4
      from usage_events e
      left join api_keys k on k.id = e.key_id and k.account_id = e.account_id
      where ${sql.join(parts, sql` and `)}
      -- NULLS LAST as in the index's definition: otherwise Postgres cannot read the order from the index
      -- and sorts every error of the period (seconds for a busy account) to return the first page.
      order by e.occurred_at desc nulls last, e.id desc nulls last
      limit ${first + 1}`),
  );
  return {
    hasNextPage: rows.length > first,
    errors: rows.slice(0, first).map((r) => {
      const at = String(r.at);
      return {
        cursor: encodeCursor(at, num(r.id)),
        requestId: String(r.request_id),
        status: num(r.status),
        method: String(r.method),
        path: String(r.route),
        message: (r.error_message as string | null) ?? null,
        code: (r.error_code as string | null) ?? null,
        type: (r.error_type as string | null) ?? null,
        deployment: (r.deployment as string | null) ?? null,
        occurredAt: new Date(at),
        maskedKey: r.kind && r.last4 ? maskKey(r.kind === 'live' ? 'live' : 'test', String(r.last4)) : null,
      };
    }),
  };
}

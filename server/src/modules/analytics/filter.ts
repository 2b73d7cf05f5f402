import type { KeyKind } from '@tessera/shared';
import { type SQL, sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { ServiceError } from '../../errors';
import { type Granularity, HISTOGRAM_SIZE } from '../usage';
import type { ResolvedPeriod } from './period';

/** Whose usage and which part of it: always one account, optionally one mode, one key or one endpoint. */
export interface UsageScope {
  accountId: string;
  mode?: KeyKind | undefined;
  keyId?: string | undefined;
  /** One endpoint: its method and route template (`POST`, `/v1/chat/completions`). */
  endpoint?: { method: string; route: string } | undefined;
}

/** What every analytics read is given: the database, whose usage, and the period. */
export interface UsageQuery {
  ctx: Pick<Ctx, 'db'>;
  scope: UsageScope;
  period: ResolvedPeriod;
}

/** The most rows of a page of errors or groups (`first`). */
export const MAX_PAGE = 100;

/** `first` of a page: 1..MAX_PAGE, else 400. */
export function checkPageSize(first: number): void {
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE) {
    throw new ServiceError('invalid_request', `\`first\` must be between 1 and ${MAX_PAGE}.`, {
      param: 'first',
    });
  }
}

/** The failed requests of the scope in the period, over usage_events aliased `e`. */
export function failedRequestsWhere(scope: UsageScope, period: ResolvedPeriod): SQL[] {
  return [
    sql`e.account_id = ${scope.accountId}`,
    sql`e.status >= 400`,
    sql`e.occurred_at >= ${iso(period.from)}`,
    sql`e.occurred_at < ${iso(period.to)}`,
    ...scopeFilters(scope, 'e.'),
  ];
}

/** The scope's optional filters over a table with mode, key_id, method and route columns (`alias.` prefixed). */
export function scopeFilters(scope: UsageScope, alias = ''): SQL[] {
  const col = (name: string) => sql.raw(`${alias}${name}`);
  const parts: SQL[] = [];
  if (scope.mode) parts.push(sql`${col('mode')} = ${scope.mode}`);
  if (scope.keyId) parts.push(sql`${col('key_id')} = ${scope.keyId}`);
  if (scope.endpoint) {
    parts.push(
      sql`${col('method')} = ${scope.endpoint.method}`,
      sql`${col('route')} = ${scope.endpoint.route}`,
    );
  }
  return parts;
}

export function iso(d: Date): SQL {
  return sql`${d.toISOString()}::timestamptz`;
}

/** WHERE clause over usage_rollups for a scope, a granularity and [from, to). */
export function rollupWhere(scope: UsageScope, granularity: Granularity, from: Date, to: Date): SQL {
  const parts = [
    sql`account_id = ${scope.accountId}`,
    sql`granularity = ${granularity}`,
    sql`bucket_start >= ${iso(from)}`,
    sql`bucket_start < ${iso(to)}`,
    ...scopeFilters(scope),
  ];
  return sql.join(parts, sql` and `);
}

/** postgres.js returns bigint and numeric sums as strings, PGlite as numbers: normalise once. */
export function num(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return Number(value);
}

/**
 * The merged latency histogram as one column per bucket (`h0`…): element sums read in the same pass as the
 * counts, far cheaper than unnesting every row's array and grouping by position.
 */
export const HISTOGRAM_SUMS: SQL = sql.raw(
  [
    ...Array.from(
      { length: HISTOGRAM_SIZE },
      (_, i) => `coalesce(sum(latency_histogram[${i + 1}]), 0) as h${i}`,
    ),
    'max(latency_max_ms) as latency_max',
  ].join(', '),
);

export function histogramOf(row: Record<string, unknown> | undefined): number[] {
  return Array.from({ length: HISTOGRAM_SIZE }, (_, i) => num(row?.[`h${i}`]));
}

/** The largest latency in a row read with HISTOGRAM_SUMS (null when no rollup row matched). */
export function latencyMaxOf(row: Record<string, unknown> | undefined): number | null {
  const max = row?.latency_max;
  return max === null || max === undefined ? null : Number(max);
}

import type { FilterCondition, SearchFilter } from '@tessera/shared';
import { type SQL, sql } from 'drizzle-orm';
import { ServiceError } from '../../errors';
import { textArrayLiteral } from './sql';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;
const RANGE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** A range bound: numbers compare with JSON numbers, ISO-8601 strings with date strings. */
function rangeSql(field: SQL, text: SQL, op: keyof typeof RANGE, value: number | string, param: string): SQL {
  const operator = sql.raw(RANGE[op]);
  if (typeof value === 'number') {
    // CASE guarantees the cast only sees JSON numbers; numeric holds any JSON number exactly.
    return sql`(case when jsonb_typeof(${field}) = 'number' then (${text})::numeric end) ${operator} ${String(value)}::numeric`;
  }
  const time = ISO_DATE.test(value)
    ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value)
    : Number.NaN;
  if (Number.isNaN(time)) {
    throw new ServiceError(
      'invalid_request',
      `${param} must be a number or an ISO-8601 date (e.g. 2024-05-01 or 2024-05-01T12:00:00Z); got '${value.slice(0, 40)}'.`,
      { param, code: 'invalid_filter' },
    );
  }
  return sql`(case when jsonb_typeof(${field}) = 'string' then search_try_timestamptz(${text}) end) ${operator} ${new Date(time).toISOString()}::timestamptz`;
}

function conditionSql(path: string[], condition: FilterCondition, param: string): SQL[] {
  const pathParam = textArrayLiteral(path);
  const field = sql`(d.metadata #> ${pathParam}::text[])`;
  const text = sql`(d.metadata #>> ${pathParam}::text[])`;
  if (condition === null || typeof condition !== 'object') {
    return [sql`${field} = ${JSON.stringify(condition)}::jsonb`];
  }
  const parts: SQL[] = [];
  if (condition.eq !== undefined) parts.push(sql`${field} = ${JSON.stringify(condition.eq)}::jsonb`);
  if (condition.ne !== undefined)
    parts.push(sql`${field} is distinct from ${JSON.stringify(condition.ne)}::jsonb`);
  if (condition.in !== undefined) {
    parts.push(sql`${field} in (select jsonb_array_elements(${JSON.stringify(condition.in)}::jsonb))`);
  }
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    const value = condition[op];
    if (value !== undefined) parts.push(rangeSql(field, text, op, value, `${param}.${op}`));
  }
  return parts;
}

/**
 * The metadata filter as a SQL condition on `d` (search_documents). Fields are dotted paths into
 * metadata; every condition must hold. Values are bound parameters, never spliced.
 */
export function filterSql(filter: SearchFilter | undefined): SQL {
  if (!filter) return sql`true`;
  const parts = Object.entries(filter).flatMap(([field, condition]) =>
    conditionSql(field.split('.'), condition, `filter.${field}`),
  );
  return parts.length === 0 ? sql`true` : sql.join(parts, sql` and `);
}

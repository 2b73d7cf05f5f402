import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';

/** Runs raw SQL and returns its rows; PGlite answers `{rows}`, postgres.js an array. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(query));
}

/** A Postgres text[] literal; every element quoted, so any characters are safe as a bound parameter. */
export function textArrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** Where an account's collection lives: every statement is scoped by both. */
export interface Scope {
  accountId: string;
  collection: string;
}

/** A lexeme as tsquery text: quoted, with quotes and backslashes escaped. */
export const quoteLexeme = (term: string) => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

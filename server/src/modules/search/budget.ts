import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { ServiceError } from '../../errors';

/**
 * What bounds a search's time (docs/search.md, 2d): every statement has a time limit on Postgres, and the
 * exact paths (top-k's rounds, scoring every match) share EXACT_SHARE of it, each in a savepoint whose
 * limit is what is left, so that a statement stopped there rolls back and the search goes on with a
 * bounded candidate set instead of a 503.
 */

/** Each search statement's time limit on Postgres when the configuration names none. */
export const STATEMENT_TIMEOUT_MS = 5_000;

/**
 * Scoring every match is tried only when at most this many documents may match (estimated) and,
 * on Postgres, only within EXACT_SHARE of the statement time limit; past either, the page comes
 * from a bounded candidate set (approximate.ts). 2a costs a document visit a match: ~20,000 take
 * 0.2-0.5 s on a 2-vCPU machine.
 */
export const EXACT_MAX_MATCHES = 20_000;
/** The share of the statement time limit that the exact paths (top-k, scoring every match) may take. */
export const EXACT_SHARE = 0.4;
/** Scoring every match is not started with less budget left than this. */
export const MIN_EXACT_MS = 50;

/**
 * Runs `run` in a savepoint whose statements stop after `budgetMs`; undefined when one did (the
 * savepoint is rolled back and the transaction goes on, its time limit restored). PGlite cannot stop
 * a statement: there the estimate alone decides.
 */
export async function withinBudget<T>(
  db: Db,
  budgetMs: number,
  restoreMs: number,
  run: (db: Db) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await db.transaction(async (sp) => {
      await sp.execute(
        sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(budgetMs)))}, true)`,
      );
      const out = await run(sp as unknown as Db);
      await sp.execute(sql`select set_config('statement_timeout', ${String(restoreMs)}, true)`);
      return out;
    });
  } catch (err) {
    if (isStatementTimeout(err)) return undefined;
    throw err;
  }
}

/** Postgres's query_canceled (statement_timeout), anywhere in the cause chain. */
function isStatementTimeout(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 6; depth++) {
    if ((current as { code?: unknown }).code === '57014') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs the search's statements in one repeatable-read transaction whose statements each have a time limit
 * (SET LOCAL: it ends with the transaction, the pooled connection keeps its default). PGlite runs
 * one statement at a time in process and has no timer to cancel one; there the bounded plan is
 * what bounds the work (at most MAX_SCORED_TERMS scored terms, MAX_QUERY_CLAUSES parts).
 */
export async function withTimeLimit<T>(db: Db, timeoutMs: number, run: (tx: Db) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      // One snapshot for every statement: top-k reads the postings and verifies candidates in
      // separate statements, and its bounds hold only for the documents those postings describe.
      await tx.execute(sql`set transaction isolation level repeatable read`);
      await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
      return run(tx as unknown as Db);
    });
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    throw new ServiceError(
      'unavailable',
      `The search took longer than its limit of ${timeoutMs} ms and was stopped. Narrow the query (fewer or rarer words, a filter) and try again.`,
      { code: 'search_timeout', param: 'query', retryable: false, cause: err },
    );
  }
}

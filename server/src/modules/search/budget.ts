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
 * Which database a search's statements go to, as the server knows it (SearchOptions.database). The
 * settings a search makes (isolation level, time limits, savepoints) are statements of their own, each
 * a round trip, and under load each round trip waits for the scheduler: on a 2-vCPU machine at load
 * ~25, 2-9 ms apiece (bench/search/profile.ts), ten of them for a rare word's search, against a
 * ranking statement of a few ms. On PostgreSQL several settings go in one round trip (postgres.js
 * sends a statement without parameters by the simple protocol, which takes several); PGlite, which
 * takes one statement a call and cannot stop one, gets no time limits and no budget savepoints.
 * Unset: each setting its own statement, which both accept (tests and benchmarks calling in).
 */
export type SearchDatabase = 'postgres' | 'pglite' | undefined;

const ms = (value: number) => String(Math.max(1, Math.round(value)));

/**
 * Runs `run` in a savepoint whose statements stop after `budgetMs`; undefined when one did (the
 * savepoint is rolled back and the transaction goes on, its time limit restored: a SET LOCAL made
 * after a savepoint is undone by rolling back to it). PGlite cannot stop a statement: there the
 * estimate alone decides, and `run` runs as it is. On PostgreSQL, when `final` says the result ends the
 * search's statements (the page is known; only COMMIT follows), the savepoint is left to the commit and
 * the time limit is not restored: two round trips saved.
 */
export async function withinBudget<T>(
  db: Db,
  budgetMs: number,
  restoreMs: number,
  run: (db: Db) => Promise<T>,
  database: SearchDatabase = undefined,
  final: (out: T) => boolean = () => false,
): Promise<T | undefined> {
  if (database === 'pglite') return run(db);
  if (database === 'postgres') {
    await db.execute(sql.raw(`savepoint search_budget; set local statement_timeout = ${ms(budgetMs)}`));
    let out: T;
    try {
      out = await run(db);
    } catch (err) {
      if (!isStatementTimeout(err)) throw err;
      await db.execute(sql.raw('rollback to savepoint search_budget; release savepoint search_budget'));
      return undefined;
    }
    if (!final(out))
      await db.execute(
        sql.raw(`set local statement_timeout = ${ms(restoreMs)}; release savepoint search_budget`),
      );
    return out;
  }
  try {
    return await db.transaction(async (sp) => {
      await sp.execute(sql`select set_config('statement_timeout', ${ms(budgetMs)}, true)`);
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
export async function withTimeLimit<T>(
  db: Db,
  timeoutMs: number,
  run: (tx: Db) => Promise<T>,
  database: SearchDatabase = undefined,
): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      // One snapshot for every statement: top-k reads the postings and verifies candidates in
      // separate statements, and its bounds hold only for the documents those postings describe.
      if (database === 'postgres')
        await tx.execute(
          sql.raw(
            `set transaction isolation level repeatable read; set local statement_timeout = ${ms(timeoutMs)}`,
          ),
        );
      else {
        await tx.execute(sql`set transaction isolation level repeatable read`);
        if (database !== 'pglite')
          await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`);
      }
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

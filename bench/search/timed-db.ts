/**
 * A database handle that times every statement run through a transaction's `execute` (the search
 * module runs all its statements that way, savepoints included), with the statement's first words,
 * for the benchmarks' per-statement profiles.
 */
import type { Db } from '../../server/src/db/client';

export interface TimedStatement {
  text: string;
  ms: number;
}

type Dialect = { sqlToQuery(q: unknown): { sql: string } };

export function timedDb(db: Db): { db: Db; statements: TimedStatement[] } {
  const statements: TimedStatement[] = [];
  const summary = (query: unknown, dialect: Dialect) =>
    (typeof query === 'string' ? query : dialect.sqlToQuery(query).sql)
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 90);
  // A transaction (or a savepoint's) whose `execute` is timed and whose nested transactions are wrapped too.
  const wrap = <T extends object>(handle: T, timeExecute: boolean): T =>
    new Proxy(handle, {
      get(target, prop, receiver) {
        if (prop === 'transaction') {
          const transaction = Reflect.get(target, prop, receiver) as (
            run: (tx: object) => Promise<unknown>,
          ) => Promise<unknown>;
          return (run: (tx: object) => Promise<unknown>) =>
            transaction.call(target, (tx: object) => run(wrap(tx, true)));
        }
        if (prop !== 'execute' || !timeExecute) return Reflect.get(target, prop, receiver);
        return async (query: unknown) => {
          const text = summary(query, (target as unknown as { dialect: Dialect }).dialect);
          const t0 = performance.now();
          try {
            return await (Reflect.get(target, prop, receiver) as (q: unknown) => Promise<unknown>).call(
              target,
              query,
            );
          } finally {
            statements.push({ text, ms: performance.now() - t0 });
          }
        };
      },
    });
  return { db: wrap(db, false), statements };
}

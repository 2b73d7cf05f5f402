import type { Sql } from 'postgres';

/**
 * A statement that got no answer within the deadline. Its `code` is one `asUnavailable` (errors.ts) knows, so
 * every transport answers 503 `service_unavailable` with `retry-after`.
 */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DATABASE_TIMEOUT';

  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms (DATABASE_TIMEOUT_MS).`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** Settles as `work` does, or rejects with a DatabaseTimeoutError after `ms`, whichever comes first. */
function within<T>(work: PromiseLike<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeoutError(ms)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * A postgres.js query as drizzle uses it (`await`, or `.values()` then `await`), whose answer is awaited for
 * at most `ms`. postgres.js runs a query when it is first awaited, so the timer starts then too.
 */
class BoundedQuery<T> implements PromiseLike<T> {
  constructor(
    private query: ReturnType<Sql['unsafe']>,
    private readonly ms: number,
  ) {}

  values(): this {
    this.query = this.query.values() as unknown as ReturnType<Sql['unsafe']>;
    return this;
  }

  // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, as postgres.js's own queries are.
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return within(this.query as unknown as PromiseLike<T>, this.ms).then(onfulfilled, onrejected);
  }
}

type BeginCallback = (tx: Sql) => Promise<unknown>;

/**
 * A transaction whose wait for a connection (and its BEGIN) and each statement are bounded by `ms`. When a
 * statement times out the transaction fails at once: postgres.js would otherwise wait for its ROLLBACK on the
 * same connection, which does not answer either.
 */
function boundedBegin(client: Sql, ms: number, args: unknown[]): Promise<unknown> {
  const fn = args[args.length - 1] as BeginCallback;
  let entered = false;
  let fail: (err: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const timer = setTimeout(() => {
    if (!entered) fail(new DatabaseTimeoutError(ms));
  }, ms);
  const begin = client.begin as unknown as (...a: unknown[]) => Promise<unknown>;
  const run = begin.call(client, ...args.slice(0, -1), async (tx: Sql) => {
    entered = true;
    clearTimeout(timer);
    try {
      return await fn(withStatementDeadline(tx, ms));
    } catch (err) {
      if (err instanceof DatabaseTimeoutError) fail(err);
      throw err;
    }
  });
  return Promise.race([run, failed]).finally(() => clearTimeout(timer));
}

/**
 * The client the request path's drizzle instance runs on: no statement waits more than `ms` for its answer,
 * so a database that hangs (a stalled process, a network that drops packets) costs a request `ms`, then a
 * 503, instead of blocking it until TCP gives up. A statement that times out is not cancelled: its connection
 * stays busy until the database answers (or the connection breaks), and the answer is dropped.
 */
export function withStatementDeadline(client: Sql, ms: number): Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe')
        return (...args: Parameters<Sql['unsafe']>) => new BoundedQuery(target.unsafe(...args), ms);
      if (property === 'begin') return (...args: unknown[]) => boundedBegin(target, ms, args);
      return Reflect.get(target, property, receiver);
    },
  });
}

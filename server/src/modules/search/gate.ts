import { ServiceError } from '../../errors';
import { AccountGate } from '../../lib/account-gate';
import type { SearchLimits } from './limits';

/** The instance's searches and indexing batches, an account's share of them (each holds a database connection). */
export function createSearchGate(limits: SearchLimits): AccountGate {
  return new AccountGate(limits.concurrency ?? { total: 8, perAccount: 4, queuePerAccount: 16 });
}

/** Runs a search or an indexing batch in the account's turn; 429 when too many of the account's already wait. */
export function inTurn<T>(gate: AccountGate, accountId: string, work: () => Promise<T>): Promise<T> {
  return gate.run(
    accountId,
    work,
    () =>
      new ServiceError(
        'rate_limited',
        `Too many searches at once: this account has ${gate.runningFor(accountId)} running and the most it may queue waiting. Wait for them to finish.`,
        { code: 'search_concurrency_exceeded', retryAfterMs: 1_000 },
      ),
  );
}

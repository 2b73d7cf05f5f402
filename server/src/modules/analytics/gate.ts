import { ServiceError } from '../../errors';
import { AccountGate, type AccountGateOptions } from '../../lib/account-gate';

/**
 * The instance's usage-analytics queries, an account's share of them: each holds a database connection for an
 * aggregate, and one GraphQL request may ask for a dozen (issue 27: a flood from one account must not hold every
 * connection while another account's dashboard waits).
 */
export function createAnalyticsGate(options: AccountGateOptions): AccountGate {
  return new AccountGate(options);
}

/** Runs one analytics read in the account's turn; 429 when too many of the account's already wait. */
export function readInTurn<T>(gate: AccountGate, accountId: string, work: () => Promise<T>): Promise<T> {
  return gate.run(
    accountId,
    work,
    () =>
      new ServiceError(
        'rate_limited',
        `Too many usage queries at once: this account has ${gate.runningFor(accountId)} running and the most it may queue waiting. Wait for them to finish.`,
        { code: 'analytics_concurrency_exceeded', retryAfterMs: 1_000 },
      ),
  );
}

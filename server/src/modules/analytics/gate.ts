import { AccountGate, type AccountGateOptions } from '../../lib/account-gate';

/**
 * The instance's usage-analytics queries, an account's share of them: each holds a database connection for an
 * aggregate, and one GraphQL request may ask for a dozen (issue 27: a flood from one account must not hold every
 * connection while another account's dashboard waits).
 */
export function createAnalyticsGate(options: AccountGateOptions): AccountGate {
  return new AccountGate(options, { what: 'usage queries', code: 'analytics_concurrency_exceeded' });
}

import { AccountGate } from '../../lib/account-gate';
import type { SearchLimits } from './limits';

/** The instance's searches and indexing batches, an account's share of them (each holds a database connection). */
export function createSearchGate(limits: SearchLimits): AccountGate {
  return new AccountGate(limits.concurrency ?? { total: 8, perAccount: 4, queuePerAccount: 16 }, {
    what: 'searches',
    code: 'search_concurrency_exceeded',
  });
}

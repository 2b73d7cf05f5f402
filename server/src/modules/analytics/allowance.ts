import type { AccountRow } from '../../db/schema';
import type { AllowanceStatus, TokenAllowance } from '../allowance';
import { type PlanDefaults, resolveLimits } from '../plans';

/**
 * The account's monthly allowance, whoever asks (a session has no key): the allowance is per account and
 * only live usage consumes it, so the status is read as the account's live principal.
 */
export function accountAllowance({
  allowance,
  account,
  planDefaults,
}: {
  allowance: TokenAllowance;
  account: AccountRow;
  planDefaults: PlanDefaults;
}): Promise<AllowanceStatus> {
  return Promise.resolve(
    allowance.status({
      keyId: '',
      accountId: account.id,
      mode: 'live',
      last4: '',
      plan: account.plan,
      limits: resolveLimits(account, planDefaults),
    }),
  );
}

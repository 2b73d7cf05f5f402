import type { Plan, PlanLimits } from '@tessera/shared';

export type PlanDefaults = Record<Plan, PlanLimits>;

export interface AccountLimitFields {
  plan: Plan;
  customRequestsPerMinute: number | null;
  customMonthlyTokens: number | null;
}

/** The limits in force for an account: its custom values where set, else its plan's defaults. */
export function resolveLimits(account: AccountLimitFields, defaults: PlanDefaults): PlanLimits {
  const base = defaults[account.plan];
  return {
    requestsPerMinute: account.customRequestsPerMinute ?? base.requestsPerMinute,
    monthlyTokens: account.customMonthlyTokens ?? base.monthlyTokens,
  };
}

import type { Principal } from '../keys';
import type { AllowanceStatus, Reservation, TokenAllowance } from './types';

/** Placeholder until the Postgres-backed allowance lands (issue 4): reserves nothing, refuses nothing. */
export class UnlimitedAllowance implements TokenAllowance {
  async reserve(_principal: Principal, tokens: number): Promise<Reservation> {
    return { tokens, settle: async () => {} };
  }

  async status(principal: Principal): Promise<AllowanceStatus> {
    const now = new Date();
    return {
      limit: principal.limits.monthlyTokens,
      used: 0,
      remaining: principal.limits.monthlyTokens,
      resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    };
  }
}

import type { BudgetPeriod, SpendScope } from '@tessera/shared';
import type { SpendBudgetRow } from '../../db/schema';
import type { Principal } from '../../principal';
import { keyBudgetPeriod } from '../allowance';

/** One budget a call is held against, in the period containing the call. */
export interface SpendTarget {
  scope: SpendScope;
  subjectId: string;
  period: BudgetPeriod;
  periodStart: string;
  resetsAt: Date;
  amountMicros: number;
}

/**
 * LOCK ORDER: every statement that changes several `spend_periods` rows takes them key first, then member, then
 * account (then by subject), in separate statements of one transaction. Two calls of one key therefore queue on
 * the key's row and never hold the account's row while waiting for a key's, so no deadlock.
 */
export const SCOPE_RANK: Record<SpendScope, number> = { key: 0, member: 1, account: 2 };

export function byLockOrder<T extends { scope: SpendScope; subjectId: string }>(a: T, b: T): number {
  return (
    SCOPE_RANK[a.scope] - SCOPE_RANK[b.scope] ||
    (a.subjectId < b.subjectId ? -1 : a.subjectId > b.subjectId ? 1 : 0)
  );
}

/** The budgets of an account that bind this caller: its key's, its key owner's, the organisation's. */
export function targetsOf(
  budgets: readonly SpendBudgetRow[],
  principal: Principal,
  nowMs: number,
): SpendTarget[] {
  const out: SpendTarget[] = [];
  const owner = principal.access?.ownerUserId ?? null;
  for (const b of budgets) {
    const applies =
      (b.scope === 'key' && b.subjectId === principal.keyId) ||
      (b.scope === 'member' && owner !== null && b.subjectId === owner) ||
      (b.scope === 'account' && b.subjectId === principal.accountId);
    if (!applies) continue;
    const period = keyBudgetPeriod(b.period, nowMs);
    out.push({
      scope: b.scope,
      subjectId: b.subjectId,
      period: b.period,
      periodStart: period.start,
      resetsAt: period.resetsAt,
      amountMicros: b.amountMicros,
    });
  }
  return out.sort(byLockOrder);
}

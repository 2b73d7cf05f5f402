import type { BudgetPeriod, KeyTokenBudget } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';
import { ServiceError } from '../../errors';
import type { AllowancePeriod } from './period';
import { type Counters, reserveTokens } from './statements';

/** The budget period containing `nowMs`: a UTC day, an ISO week (from Monday) or a UTC month. */
export function keyBudgetPeriod(period: BudgetPeriod, nowMs: number): AllowancePeriod {
  const now = new Date(nowMs);
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  let start: number;
  let end: number;
  if (period === 'month') {
    start = Date.UTC(y, m, 1);
    end = Date.UTC(y, m + 1, 1);
  } else if (period === 'week') {
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    start = Date.UTC(y, m, d - sinceMonday);
    end = Date.UTC(y, m, d - sinceMonday + 7);
  } else {
    start = Date.UTC(y, m, d);
    end = Date.UTC(y, m, d + 1);
  }
  return { start: new Date(start).toISOString().slice(0, 10), resetsAt: new Date(end) };
}

export type BudgetedReservation =
  | { ok: true; account: Counters }
  | { ok: false; refusedBy: 'key'; key: Counters }
  | { ok: false; refusedBy: 'plan' };

/**
 * Holds `tokens` in the key's budget period and in the account's month, both or neither: one transaction, each
 * a conditional upsert under its row lock (as `reserveTokens`), rolled back when either does not fit. So
 * neither limit can be overshot by concurrent calls on any number of instances. The reservation row names the
 * key's period, for the settle and the sweep.
 */
export async function reserveWithKeyBudget(
  db: Db,
  input: {
    id: string;
    accountId: string;
    period: string;
    tokens: number;
    limit: number;
    ttlMs: number;
    keyId: string;
    budget: KeyTokenBudget;
    keyPeriodStart: string;
  },
): Promise<BudgetedReservation> {
  const { keyId, budget, keyPeriodStart, tokens } = input;
  return db.transaction(async (tx) => {
    const [key] = rowsOf<{ used: string | number; reserved: string | number }>(
      await tx.execute(sql`
        insert into key_budget_periods (key_id, period, period_start, used, reserved)
        values (${keyId}, ${budget.period}, ${keyPeriodStart}, 0, ${tokens})
        on conflict (key_id, period, period_start) do update
          set reserved = key_budget_periods.reserved + excluded.reserved, updated_at = now()
          where key_budget_periods.used + key_budget_periods.reserved + excluded.reserved <= ${budget.tokens}
        returning used, reserved`),
    );
    if (!key) {
      const current = await readKeyBudget(tx, keyId, budget.period, keyPeriodStart);
      return { ok: false, refusedBy: 'key', key: current };
    }
    const account = await reserveTokens(tx, {
      ...input,
      key: { id: keyId, period: budget.period, start: keyPeriodStart },
    });
    if (!account) {
      // Undo the key's hold: the call is not admitted.
      await tx.execute(sql`
        update key_budget_periods set reserved = reserved - ${tokens}
        where key_id = ${keyId} and period = ${budget.period} and period_start = ${keyPeriodStart}`);
      return { ok: false, refusedBy: 'plan' };
    }
    return { ok: true, account };
  });
}

export async function readKeyBudget(
  db: Db,
  keyId: string,
  period: BudgetPeriod,
  start: string,
): Promise<Counters> {
  const [row] = rowsOf<{ used: string | number; reserved: string | number }>(
    await db.execute(sql`
      select used, reserved from key_budget_periods
      where key_id = ${keyId} and period = ${period} and period_start = ${start}`),
  );
  return row ? { used: Number(row.used), reserved: Number(row.reserved) } : { used: 0, reserved: 0 };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** 429 `key_budget_exceeded`: the key's own budget, not the plan's allowance; retrying before the reset does not help. */
export function keyBudgetExceeded(input: {
  budget: KeyTokenBudget;
  remaining: number;
  requested: number;
  period: AllowancePeriod;
  nowMs: number;
}): ServiceError {
  const { budget, remaining, requested, period } = input;
  const per = `this API key's token budget is ${fmt(budget.tokens)} tokens per ${budget.period}`;
  const resets = `It resets at ${period.resetsAt.toISOString().replace('.000Z', 'Z')}.`;
  const message =
    remaining <= 0
      ? `This API key has used up its token budget: ${per}. ${resets}`
      : `This request needs up to ${fmt(requested)} tokens (prompt plus max_tokens) but only ${fmt(remaining)} remain in this API key's budget: ${per}. Lower max_tokens, or wait: ${resets}`;
  const retryMs = Math.max(1_000, period.resetsAt.getTime() - input.nowMs);
  return new ServiceError('insufficient_quota', message, {
    code: 'key_budget_exceeded',
    type: 'insufficient_quota',
    retryable: false,
    retryAfterMs: retryMs,
  });
}

import { BUDGET_ALERT_THRESHOLDS, type BudgetPeriod, type SpendScope } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';
import { newId } from '../../lib/ids';
import { keyBudgetPeriod } from '../allowance';
import { enqueueDelivery } from '../webhooks';

export interface RaisedAlert {
  id: string;
  scope: SpendScope;
  subjectId: string;
  thresholdPercent: number;
}

/** The webhook event of a budget alert: what the organisation's endpoint receives. */
export const BUDGET_ALERT_EVENT = 'budget.threshold_reached';

/**
 * Raises the alerts a period's spend has crossed since the last one (50, 80, 100 %; several at once when one
 * call jumps over more than one), each once per budget and period: `alerted_percent` moves up only under the
 * period's row lock (the caller's update holds it), and the unique index on the alerts refuses a second copy.
 * Each alert is queued for the organisation's webhook in the same transaction.
 */
export async function raiseAlerts(
  tx: Db,
  input: {
    accountId: string;
    scope: SpendScope;
    subjectId: string;
    period: BudgetPeriod;
    periodStart: string;
    amountMicros: number;
    usedMicros: number;
    alertedPercent: number;
    currency: string;
  },
): Promise<RaisedAlert[]> {
  const crossed = BUDGET_ALERT_THRESHOLDS.filter(
    (t) => t > input.alertedPercent && input.usedMicros * 100 >= input.amountMicros * t,
  );
  const top = crossed.at(-1);
  if (top === undefined) return [];
  await tx.execute(sql`
    update spend_periods set alerted_percent = ${top}
    where account_id = ${input.accountId} and scope = ${input.scope} and subject_id = ${input.subjectId}
      and period = ${input.period} and period_start = ${input.periodStart} and alerted_percent < ${top}`);
  const raised: RaisedAlert[] = [];
  const resetsAt = keyBudgetPeriod(input.period, Date.parse(`${input.periodStart}T00:00:00Z`)).resetsAt;
  for (const threshold of crossed) {
    const id = newId('alert');
    const inserted = rowsOf(
      await tx.execute(sql`
        insert into budget_alerts (id, account_id, scope, subject_id, period, period_start, threshold_percent,
          amount_micros, used_micros)
        values (${id}, ${input.accountId}, ${input.scope}, ${input.subjectId}, ${input.period},
          ${input.periodStart}, ${threshold}, ${input.amountMicros}, ${input.usedMicros})
        on conflict do nothing
        returning id`),
    );
    if (inserted.length === 0) continue;
    const createdAt = new Date().toISOString();
    await enqueueDelivery(tx, {
      accountId: input.accountId,
      eventType: BUDGET_ALERT_EVENT,
      payload: {
        id,
        type: BUDGET_ALERT_EVENT,
        created_at: createdAt,
        data: {
          scope: input.scope,
          subject_id: input.subjectId,
          threshold_percent: threshold,
          amount_micros: input.amountMicros,
          used_micros: input.usedMicros,
          currency: input.currency,
          period: input.period,
          period_start: input.periodStart,
          period_end: resetsAt.toISOString(),
        },
      },
    });
    raised.push({ id, scope: input.scope, subjectId: input.subjectId, thresholdPercent: threshold });
  }
  return raised;
}

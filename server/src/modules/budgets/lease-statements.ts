import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';
import { type RaisedAlert, raiseAlerts } from './alerts';
import type { SpendTarget } from './targets';

/**
 * The statements of a spend lease (leases.ts): a block of one budget's period held by one instance as a single
 * hold row (`spend_holds`, its `reservation_id` the lease's id), taken, drained and closed. Closing is a call's
 * settle (statements.ts `settleSpend`): the hold deleted, its money given back, what it served counted.
 */

/**
 * Holds `micros` in the target's period for a lease, only while at least `headroomMicros` (the lease and the
 * leases' worth that must stay free after it) fit under the budget: the same conditional upsert as a call's
 * reservation, so leases never hold more than the budget. False when the budget is too near its end to lease.
 */
export async function takeSpendLease(
  db: Db,
  input: {
    id: string;
    accountId: string;
    target: SpendTarget;
    micros: number;
    headroomMicros: number;
    ttlMs: number;
  },
): Promise<boolean> {
  const { id, accountId, target: t, micros, headroomMicros, ttlMs } = input;
  return db.transaction(async (tx) => {
    const admitted = rowsOf(
      await tx.execute(sql`
        insert into spend_periods (account_id, scope, subject_id, period, period_start, reserved_micros)
        select ${accountId}, ${t.scope}, ${t.subjectId}, ${t.period}, ${t.periodStart}, ${micros}
        where ${headroomMicros}::bigint <= ${t.amountMicros}::bigint
        on conflict (account_id, scope, subject_id, period, period_start) do update
          set reserved_micros = spend_periods.reserved_micros + excluded.reserved_micros, updated_at = now()
          where spend_periods.used_micros + spend_periods.reserved_micros + ${headroomMicros}::bigint
            <= ${t.amountMicros}::bigint
        returning 1`),
    );
    if (admitted.length === 0) return false;
    await tx.execute(sql`
      insert into spend_holds
        (reservation_id, account_id, scope, subject_id, period, period_start, micros, expires_at)
      values (${id}, ${accountId}, ${t.scope}, ${t.subjectId}, ${t.period}, ${t.periodStart}, ${micros},
        now() + ${ttlMs} * interval '1 millisecond')`);
    return true;
  });
}

export type DrainOutcome =
  /** Written now; the alerts it raised. */
  | { kind: 'drained'; raised: RaisedAlert[] }
  /** An earlier attempt with the same figures committed (its answer was lost): nothing more to do. */
  | { kind: 'already' }
  /** The sweep gave the lease's money back (this instance stalled past its expiry): the usage still counts. */
  | { kind: 'released' };

/**
 * Writes what a lease served: the period's `used` grows by `usedMicros`, its `reserved` and the hold shrink from
 * `heldBefore` to `heldAfter`, and the hold's expiry moves `ttlMs` ahead. The hold's amount is a compare-and-set,
 * so a drain repeated with the same figures after a lost answer counts once.
 */
export async function drainSpendLease(
  db: Db,
  input: {
    id: string;
    accountId: string;
    target: SpendTarget;
    usedMicros: number;
    heldBefore: number;
    heldAfter: number;
    ttlMs: number;
    currency: string;
  },
): Promise<DrainOutcome> {
  const { id, accountId, target: t, usedMicros, heldBefore, heldAfter, ttlMs } = input;
  return db.transaction(async (tx) => {
    const moved = rowsOf(
      await tx.execute(sql`
        update spend_holds set micros = ${heldAfter}, expires_at = now() + ${ttlMs} * interval '1 millisecond'
        where reservation_id = ${id} and micros = ${heldBefore} and released = false
        returning 1`),
    );
    if (moved.length === 0) {
      const [hold] = rowsOf<{ micros: unknown; released: boolean }>(
        await tx.execute(sql`select micros, released from spend_holds where reservation_id = ${id}`),
      );
      if (hold && !hold.released && Number(hold.micros) === heldAfter) return { kind: 'already' };
      // Released by the sweep (or gone): the money went back, the spend must still be counted.
      await tx.execute(sql`
        update spend_periods set used_micros = used_micros + ${usedMicros}, updated_at = now()
        where account_id = ${accountId} and scope = ${t.scope} and subject_id = ${t.subjectId}
          and period = ${t.period} and period_start = ${t.periodStart}`);
      return { kind: 'released' };
    }
    const [row] = rowsOf<{ used_micros: unknown; alerted_percent: number }>(
      await tx.execute(sql`
        update spend_periods
        set used_micros = used_micros + ${usedMicros}, reserved_micros = reserved_micros - ${heldBefore - heldAfter},
          updated_at = now()
        where account_id = ${accountId} and scope = ${t.scope} and subject_id = ${t.subjectId}
          and period = ${t.period} and period_start = ${t.periodStart}
        returning used_micros, alerted_percent`),
    );
    if (!row) return { kind: 'drained', raised: [] };
    const raised = await raiseAlerts(tx, {
      accountId,
      scope: t.scope,
      subjectId: t.subjectId,
      period: t.period,
      periodStart: t.periodStart,
      amountMicros: t.amountMicros,
      usedMicros: Number(row.used_micros),
      alertedPercent: Number(row.alerted_percent),
      currency: input.currency,
    });
    return { kind: 'drained', raised };
  });
}

import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';
import { type RaisedAlert, raiseAlerts } from './alerts';
import { byLockOrder, type SpendTarget } from './targets';

export interface SpendCounters {
  usedMicros: number;
  reservedMicros: number;
}

const num = (v: unknown) => Number(v ?? 0);

/** Thrown inside the reservation's transaction to roll back the holds already taken. */
class Refused extends Error {
  constructor(readonly target: SpendTarget) {
    super('spend budget refused');
  }
}

export type SpendReservation = { ok: true } | { ok: false; target: SpendTarget; current: SpendCounters };

/**
 * Holds `micros` in every target's period, all or none: one transaction, each period a conditional upsert
 * (`used + reserved + micros ≤ amount`) under its row lock, taken in LOCK ORDER (targets.ts). Row locks make it
 * exact across connections and instances: concurrent calls queue on the row and each sees the others' holds.
 */
export async function reserveSpend(
  db: Db,
  input: { id: string; accountId: string; micros: number; ttlMs: number; targets: readonly SpendTarget[] },
): Promise<SpendReservation> {
  const { id, accountId, micros, ttlMs } = input;
  try {
    await db.transaction(async (tx) => {
      for (const t of [...input.targets].sort(byLockOrder)) {
        const admitted = rowsOf(
          await tx.execute(sql`
            insert into spend_periods (account_id, scope, subject_id, period, period_start, reserved_micros)
            values (${accountId}, ${t.scope}, ${t.subjectId}, ${t.period}, ${t.periodStart}, ${micros})
            on conflict (account_id, scope, subject_id, period, period_start) do update
              set reserved_micros = spend_periods.reserved_micros + excluded.reserved_micros, updated_at = now()
              where spend_periods.used_micros + spend_periods.reserved_micros + excluded.reserved_micros
                <= ${t.amountMicros}
            returning 1`),
        );
        if (admitted.length === 0 || micros > t.amountMicros) throw new Refused(t);
        await tx.execute(sql`
          insert into spend_holds
            (reservation_id, account_id, scope, subject_id, period, period_start, micros, expires_at)
          values (${id}, ${accountId}, ${t.scope}, ${t.subjectId}, ${t.period}, ${t.periodStart}, ${micros},
            now() + ${ttlMs} * interval '1 millisecond')`);
      }
    });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return { ok: false, target: err.target, current: await readSpend(db, accountId, err.target) };
  }
}

export async function readSpend(
  db: Db,
  accountId: string,
  t: Pick<SpendTarget, 'scope' | 'subjectId' | 'period' | 'periodStart'>,
): Promise<SpendCounters> {
  const [row] = rowsOf<{ used_micros: unknown; reserved_micros: unknown }>(
    await db.execute(sql`
      select used_micros, reserved_micros from spend_periods
      where account_id = ${accountId} and scope = ${t.scope} and subject_id = ${t.subjectId}
        and period = ${t.period} and period_start = ${t.periodStart}`),
  );
  return { usedMicros: num(row?.used_micros), reservedMicros: num(row?.reserved_micros) };
}

interface HeldRow {
  scope: SpendTarget['scope'];
  subject_id: string;
  period: SpendTarget['period'];
  period_start: string;
  micros: unknown;
}

/**
 * Moves a reservation's holds to the real cost: deleting the hold rows first makes a repeated settle a no-op;
 * a hold the sweep already released only adds its cost. Each period that crosses an alert threshold raises its
 * alert in the same transaction (alerts.ts), so an alert and its webhook delivery are stored with the spend
 * that caused them, or not at all.
 */
export async function settleSpend(
  db: Db,
  input: {
    id: string;
    accountId: string;
    costMicros: number;
    /** The budget amounts now, by `scope:subject`, to compute the alert thresholds against. */
    amounts: ReadonlyMap<string, number>;
    currency: string;
  },
): Promise<RaisedAlert[]> {
  const { id, accountId, costMicros } = input;
  return db.transaction(async (tx) => {
    const held = rowsOf<HeldRow & { released: boolean }>(
      await tx.execute(sql`
        delete from spend_holds where reservation_id = ${id}
        returning scope, subject_id, period, to_char(period_start, 'YYYY-MM-DD') as period_start, micros, released`),
    );
    const raised: RaisedAlert[] = [];
    for (const h of held.map((r) => ({ ...r, subjectId: r.subject_id })).sort(byLockOrder)) {
      const back = h.released ? 0 : num(h.micros);
      const [row] = rowsOf<{ used_micros: unknown; alerted_percent: number }>(
        await tx.execute(sql`
          update spend_periods
          set used_micros = used_micros + ${costMicros}, reserved_micros = reserved_micros - ${back},
            updated_at = now()
          where account_id = ${accountId} and scope = ${h.scope} and subject_id = ${h.subject_id}
            and period = ${h.period} and period_start = ${h.period_start}
          returning used_micros, alerted_percent`),
      );
      const amount = input.amounts.get(`${h.scope}:${h.subject_id}`);
      if (!row || amount === undefined) continue;
      raised.push(
        ...(await raiseAlerts(tx, {
          accountId,
          scope: h.scope,
          subjectId: h.subject_id,
          period: h.period,
          periodStart: h.period_start,
          amountMicros: amount,
          usedMicros: num(row.used_micros),
          alertedPercent: Number(row.alerted_percent),
          currency: input.currency,
        })),
      );
    }
    return raised;
  });
}

/** Gives back the holds of calls whose process died (past their expiry); returns how many. */
export async function releaseExpiredSpend(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    const released = rowsOf<HeldRow & { account_id: string }>(
      await tx.execute(sql`
        update spend_holds set released = true
        where released = false and expires_at < now()
        returning account_id, scope, subject_id, period, to_char(period_start, 'YYYY-MM-DD') as period_start, micros`),
    );
    for (const h of released.map((r) => ({ ...r, subjectId: r.subject_id })).sort(byLockOrder)) {
      await tx.execute(sql`
        update spend_periods set reserved_micros = reserved_micros - ${num(h.micros)}, updated_at = now()
        where account_id = ${h.account_id} and scope = ${h.scope} and subject_id = ${h.subject_id}
          and period = ${h.period} and period_start = ${h.period_start}`);
    }
    // Released holds are kept a day for late settles, then forgotten.
    await tx.execute(sql`delete from spend_holds where released and expires_at < now() - interval '1 day'`);
    return released.length;
  });
}

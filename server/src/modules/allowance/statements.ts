import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/rows';

/**
 * The allowance's writes, each one statement (one round trip, atomic): data-modifying CTEs keep the
 * period's counters and the reservation rows in step without an explicit transaction.
 *
 * KEY_FIRST: a write that changes both a key's budget period and its account's period locks the key's row
 * first, as reserveWithKeyBudget (key-budget.ts) does. PostgreSQL runs a data-modifying CTE that nothing reads
 * after the main statement, so a settle locked the account's row, then waited for the key's, held by a
 * reservation of the same key waiting for the account's: a deadlock, which PostgreSQL ends after a second by
 * failing one of them (the call being admitted). So the account's update joins a count of the key's update's
 * rows, which it cannot have before that update is done.
 */

export interface Counters {
  used: number;
  reserved: number;
}

function counters(result: unknown): Counters | undefined {
  const [row] = rowsOf<{ used: string | number; reserved: string | number }>(result);
  return row ? { used: Number(row.used), reserved: Number(row.reserved) } : undefined;
}

/** Holds `tokens` when used + reserved + tokens ≤ limit; undefined when it does not fit. */
export async function reserveTokens(
  db: Db,
  input: {
    id: string;
    accountId: string;
    period: string;
    tokens: number;
    limit: number;
    ttlMs: number;
    /** A call of a key with a budget: the key's period that holds the same tokens (key-budget.ts). */
    key?: { id: string; period: string; start: string };
  },
): Promise<Counters | undefined> {
  const { id, accountId, period, tokens, limit, ttlMs, key } = input;
  return counters(
    await db.execute(sql`
      with period as (
        insert into allowance_periods (account_id, period_start, used, reserved)
        values (${accountId}, ${period}, 0, ${tokens})
        on conflict (account_id, period_start) do update
          set reserved = allowance_periods.reserved + excluded.reserved, updated_at = now()
          where allowance_periods.used + allowance_periods.reserved + excluded.reserved <= ${limit}
        returning used, reserved
      ), held as (
        insert into allowance_reservations
          (id, account_id, period_start, tokens, expires_at, key_id, key_period, key_period_start)
        select ${id}, ${accountId}, ${period}, ${tokens}, now() + ${ttlMs} * interval '1 millisecond',
          ${key?.id ?? null}, ${key?.period ?? null}, ${key?.start ?? null}::date
        from period
        returning id
      )
      select used, reserved from period`),
  );
}

/**
 * Moves a reservation to real usage. Deleting the reservation row makes it idempotent: a second settle
 * (a retry after a lost reply) finds nothing and changes nothing. A reservation already released by the
 * sweep only adds its usage. A key's budget period, when the reservation names one, moves the same way.
 * The key's row is locked before the account's (KEY_FIRST).
 */
export async function settleReservation(
  db: Db,
  input: { id: string; accountId: string; period: string; used: number },
): Promise<Counters | undefined> {
  const { id, accountId, period, used } = input;
  return counters(
    await db.execute(sql`
      with held as (
        delete from allowance_reservations where id = ${id}
        returning case when released then 0 else tokens end as tokens, key_id, key_period, key_period_start
      ), key_budget as (
        update key_budget_periods k
        set used = k.used + ${used}, reserved = k.reserved - held.tokens, updated_at = now()
        from held
        where k.key_id = held.key_id and k.period = held.key_period and k.period_start = held.key_period_start
        returning 1
      )
      update allowance_periods p
        set used = p.used + ${used}, reserved = p.reserved - held.tokens, updated_at = now()
        from held, (select count(*) from key_budget) as key_first
        where p.account_id = ${accountId} and p.period_start = ${period}
        returning p.used, p.reserved`),
  );
}

/**
 * Gives back the tokens of reservations past their expiry (their process died); returns how many. Keys' rows
 * are locked before accounts' (KEY_FIRST).
 */
export async function releaseExpired(db: Db): Promise<number> {
  const [row] = rowsOf<{ n: string | number }>(
    await db.execute(sql`
      with released as (
        update allowance_reservations set released = true
        where released = false and expires_at < now()
        returning account_id, period_start, tokens, key_id, key_period, key_period_start
      ), key_totals as (
        select key_id, key_period, key_period_start, sum(tokens) as tokens
        from released where key_id is not null group by key_id, key_period, key_period_start
      ), key_applied as (
        update key_budget_periods k set reserved = k.reserved - key_totals.tokens, updated_at = now()
        from key_totals
        where k.key_id = key_totals.key_id and k.period = key_totals.key_period
          and k.period_start = key_totals.key_period_start
        returning 1
      ), totals as (
        select account_id, period_start, sum(tokens) as tokens, count(*) as n
        from released group by account_id, period_start
      ), applied as (
        update allowance_periods p set reserved = p.reserved - totals.tokens, updated_at = now()
        from totals, (select count(*) from key_applied) as key_first
        where p.account_id = totals.account_id and p.period_start = totals.period_start
        returning totals.n
      )
      select coalesce(sum(n), 0) as n from applied`),
  );
  // Released rows are kept a day for late settles, then forgotten.
  await db.execute(
    sql`delete from allowance_reservations where released and expires_at < now() - interval '1 day'`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Writes what a lease has served so far without closing it: `used` tokens become usage and the lease's held
 * tokens go from `heldBefore` to `heldAfter` (the difference leaves `reserved`). A compare-and-set on the lease
 * row makes it idempotent: repeated after a lost reply, it finds the row already at `heldAfter` and changes
 * nothing (undefined; the caller then reads the row to learn which it was). It also moves the row's expiry to
 * `ttlMs` from now, so the sweep never takes back the lease of an instance that keeps writing.
 */
export async function drainLease(
  db: Db,
  input: {
    id: string;
    accountId: string;
    period: string;
    used: number;
    heldBefore: number;
    heldAfter: number;
    ttlMs: number;
  },
): Promise<Counters | undefined> {
  const { id, accountId, period, used, heldBefore, heldAfter, ttlMs } = input;
  return counters(
    await db.execute(sql`
      with held as (
        update allowance_reservations
        set tokens = ${heldAfter}, expires_at = now() + ${ttlMs} * interval '1 millisecond'
        where id = ${id} and tokens = ${heldBefore} and not released
        returning ${heldBefore - heldAfter}::bigint as tokens
      )
      update allowance_periods p
        set used = p.used + ${used}, reserved = p.reserved - held.tokens, updated_at = now()
        from held
        where p.account_id = ${accountId} and p.period_start = ${period}
        returning p.used, p.reserved`),
  );
}

/** The tokens a lease row holds now and whether the sweep released it; undefined when it is gone. */
export async function leaseRow(
  db: Db,
  id: string,
): Promise<{ tokens: number; released: boolean } | undefined> {
  const [row] = rowsOf<{ tokens: string | number; released: boolean }>(
    await db.execute(sql`select tokens, released from allowance_reservations where id = ${id}`),
  );
  return row ? { tokens: Number(row.tokens), released: Boolean(row.released) } : undefined;
}

/** Adds usage to a period directly (a lease that was lost: its tokens were already given back). */
export async function addUsage(
  db: Db,
  input: { accountId: string; period: string; used: number },
): Promise<Counters | undefined> {
  const { accountId, period, used } = input;
  return counters(
    await db.execute(sql`
      update allowance_periods set used = used + ${used}, updated_at = now()
      where account_id = ${accountId} and period_start = ${period}
      returning used, reserved`),
  );
}

import type { Ctx } from '../../context';
import { newId } from '../../lib/ids';
import { drainSpendLease, takeSpendLease } from './lease-statements';
import { settleSpend } from './statements';
import type { SpendTarget } from './targets';
import type { SpendHold } from './types';

export interface SpendLeaseOptions {
  /** A budget's lease is its amount ÷ this (at least twice the call); 0 turns leasing off. */
  divisor: number;
  currency: string;
  /** A lease takes no new calls after this long; it is then written and closed once its calls are done. */
  maxAgeMs: number;
  /** Nor once this long has passed without a call. */
  idleMs: number;
  /** How often what the leases served is written. */
  flushMs: number;
  /** Expiry of the lease's hold row, after which the sweep gives its money back (the instance died). */
  ttlMs: number;
  onAlert?: () => void;
}

/** Leases are taken only while a budget has this many leases' worth left (the lease itself included). */
export const SPEND_LEASE_HEADROOM = 16;

/** The next lease is taken in the background once the current one is this far through its age or its money. */
const RENEW_AT = 0.75;

/** A block of one budget's period held by this instance (one hold row); calls draw on it in memory. */
interface SpendLease {
  readonly id: string;
  readonly key: string;
  readonly accountId: string;
  readonly target: SpendTarget;
  readonly openedAt: number;
  lastDrawAt: number;
  /** Micro-units the hold row holds in the database. */
  held: number;
  /** Worst cases of calls admitted against the lease and not settled yet. */
  drawn: number;
  /** Real costs of settled calls, not written yet. */
  consumed: number;
  open: boolean;
  writing: boolean;
  /** A drain whose answer was lost: repeated with the same figures until its outcome is known. */
  pending: { usedMicros: number; heldBefore: number; heldAfter: number } | undefined;
}

const free = (lease: SpendLease) => lease.held - lease.drawn - lease.consumed;
const keyOf = (accountId: string, t: SpendTarget) =>
  `${accountId}|${t.scope}|${t.subjectId}|${t.period}|${t.periodStart}`;

/**
 * Money budgets off the call path, the token allowance's way (modules/allowance, leases.ts): while a budget has
 * at least SPEND_LEASE_HEADROOM leases' worth left, this instance holds a lease of it, one hold row taken by the
 * same conditional upsert as a call's reservation, and admits calls against it in memory. So budgets stay exact
 * across instances (no lease holds money the budget has not got), while a call costs no database round trip:
 * with a reservation and a settle of two budgets in the database, each call of a budgeted key took 11 round
 * trips queued on the same two row locks (bench/gateway/routing.ts: ~10 × the CPU of an unbudgeted call and
 * tens of ms of latency at 4 calls in flight). Every `flushMs` the spend served is written (raising the alerts it
 * crosses); a lease closes after `maxAgeMs`, or `idleMs` without a call, once its calls are done, like a call's
 * hold. Near the end of a budget every call is reserved exactly in the database, so a budget can be used to the
 * last micro-unit. Costs reach the database up to `flushMs` late, and so do the alerts they raise; money leased by
 * one instance is not available to another until the lease closes (within `idleMs` when idle).
 */
export class SpendLeaseBook {
  private readonly open = new Map<string, SpendLease>();
  private readonly all = new Set<SpendLease>();
  private readonly acquiring = new Map<string, Promise<SpendLease | undefined>>();
  /** Budgets found too near their end to lease, until when (this clock): their calls go to the database. */
  private readonly nearEnd = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: SpendLeaseOptions,
  ) {}

  get enabled(): boolean {
    return this.options.divisor > 0;
  }

  start(): void {
    if (this.timer || !this.enabled) return;
    this.timer = setInterval(() => void this.flush(false), this.options.flushMs);
    this.timer.unref();
  }

  /** Writes what every lease served and closes them (their calls are done by then: the server has drained). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
  }

  /**
   * Admits a call of worst case `micros` against a lease of each of its budgets, all or none; undefined when
   * leasing does not apply (off, or a budget near its end): the caller then reserves the call in the database.
   */
  async draw(
    accountId: string,
    targets: readonly SpendTarget[],
    micros: number,
  ): Promise<SpendHold | undefined> {
    if (!this.enabled) return undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const leases: SpendLease[] = [];
      for (const t of targets) {
        const lease = await this.leaseFor(accountId, t, micros);
        if (!lease) {
          // Near the budget's end: what this instance's lease of it holds spare goes back first, so that the
          // call's exact reservation in the database can use it.
          const key = keyOf(accountId, t);
          this.release(key);
          if ([...this.all].some((l) => l.key === key && l.held > 0 && free(l) > 0)) await this.flushNow();
          return undefined;
        }
        leases.push(lease);
      }
      // Synchronously, so that no other call draws between the check and the draw.
      if (!leases.every((l) => l.open && free(l) >= micros)) continue;
      const now = this.ctx.clock.now();
      for (const l of leases) {
        l.drawn += micros;
        l.lastDrawAt = now;
        this.renewIfDue(l, micros, now);
      }
      let settled = false;
      return {
        settle: async (costMicros: number) => {
          if (settled) return;
          settled = true;
          const cost = Math.max(0, Math.round(costMicros) || 0);
          for (const l of leases) {
            l.drawn -= micros;
            l.consumed += cost;
          }
        },
      };
    }
    return undefined;
  }

  /** An open lease of the budget with room for the call, taking one when needed. */
  private async leaseFor(accountId: string, t: SpendTarget, micros: number): Promise<SpendLease | undefined> {
    const key = keyOf(accountId, t);
    const now = this.ctx.clock.now();
    if ((this.nearEnd.get(key) ?? 0) > now) return undefined;
    let current = this.open.get(key);
    // The budget was changed (here, or elsewhere and read again): its lease closes; a new one fits the new amount.
    if (current && current.target.amountMicros !== t.amountMicros) {
      this.release(key);
      current = undefined;
    }
    if (current?.open && this.usable(current, now) && free(current) >= micros) return current;
    const size = this.sizeFor(t, micros);
    // A budget too small for the headroom, whatever it has spent, is never leased: no need to ask.
    if (SPEND_LEASE_HEADROOM * size > t.amountMicros) return undefined;
    const lease = await (this.acquiring.get(key) ?? this.acquire(key, accountId, t, size));
    if (!lease) {
      // Looked at again after a second: spend elsewhere may be given back, or the budget raised.
      this.nearEnd.set(key, this.ctx.clock.now() + 1_000);
      if (this.nearEnd.size > 100_000) this.nearEnd.clear();
    }
    return lease;
  }

  /** Closes the budget's open lease to new calls: its spare money goes back on the next pass. */
  private release(key: string): void {
    const lease = this.open.get(key);
    if (!lease) return;
    lease.open = false;
    this.open.delete(key);
  }

  private sizeFor(t: SpendTarget, micros: number): number {
    return Math.max(Math.ceil(t.amountMicros / this.options.divisor), 2 * micros);
  }

  /** Near its end (by age or by money), the next lease is taken in the background; calls go on meanwhile. */
  private renewIfDue(lease: SpendLease, micros: number, now: number): void {
    const size = this.sizeFor(lease.target, micros);
    if (this.acquiring.has(lease.key)) return;
    if (now - lease.openedAt < this.options.maxAgeMs * RENEW_AT && free(lease) >= size * (1 - RENEW_AT))
      return;
    this.acquire(lease.key, lease.accountId, lease.target, size).catch((err: unknown) => {
      this.ctx.logger.warn({ err: (err as Error).message }, 'taking the next spend lease failed');
    });
  }

  private usable(lease: SpendLease, now: number): boolean {
    return now - lease.openedAt < this.options.maxAgeMs && now - lease.lastDrawAt < this.options.idleMs;
  }

  /** Takes a new lease; calls of the same budget arriving meanwhile share it. */
  private acquire(
    key: string,
    accountId: string,
    target: SpendTarget,
    size: number,
  ): Promise<SpendLease | undefined> {
    const id = newId('spl');
    const pending = takeSpendLease(this.ctx.db, {
      id,
      accountId,
      target,
      micros: size,
      headroomMicros: SPEND_LEASE_HEADROOM * size,
      ttlMs: this.options.ttlMs,
    })
      .then((taken) => {
        if (!taken) return undefined;
        const now = this.ctx.clock.now();
        const lease: SpendLease = {
          id,
          key,
          accountId,
          target,
          openedAt: now,
          lastDrawAt: now,
          held: size,
          drawn: 0,
          consumed: 0,
          open: true,
          writing: false,
          pending: undefined,
        };
        const previous = this.open.get(key);
        if (previous) previous.open = false;
        this.open.set(key, lease);
        this.all.add(lease);
        return lease;
      })
      .finally(() => this.acquiring.delete(key));
    this.acquiring.set(key, pending);
    return pending;
  }

  /** A pass that starts after this call: one already running may have missed what was settled since. */
  async flushNow(): Promise<void> {
    await this.flushing;
    await this.flush(false);
  }

  /** One pass over the leases; concurrent callers share it. */
  flush(closing: boolean): Promise<void> {
    if (this.flushing) return closing ? this.flushing.then(() => this.flush(true)) : this.flushing;
    this.flushing = this.pass(closing).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async pass(closing: boolean): Promise<void> {
    // Closing waits for the leases being taken: one whose row is written but not yet installed would stay open.
    if (closing && this.acquiring.size > 0) await Promise.allSettled([...this.acquiring.values()]);
    const now = this.ctx.clock.now();
    const work: Promise<void>[] = [];
    for (const lease of this.all) {
      if (lease.writing) continue;
      if (closing || !this.usable(lease, now)) lease.open = false;
      if (!lease.open && this.open.get(lease.key) === lease) this.open.delete(lease.key);
      lease.writing = true;
      work.push(
        this.write(lease).finally(() => {
          lease.writing = false;
        }),
      );
    }
    await Promise.all(work);
  }

  /** Writes what the lease served; closes it once it takes no calls and none is running. */
  private async write(lease: SpendLease): Promise<void> {
    try {
      // A closed lease whose calls still run keeps their worst cases only: its spare money goes back at once.
      const spare = !lease.open && lease.drawn > 0 && free(lease) > 0;
      if ((lease.pending || lease.consumed > 0 || spare) && lease.held > 0) await this.drain(lease);
      if (lease.open || lease.drawn > 0 || lease.pending) return;
      // A call's settle: the hold deleted (so a repeat changes nothing), its money back, its spend counted.
      const raised = await settleSpend(this.ctx.db, {
        id: lease.id,
        accountId: lease.accountId,
        costMicros: lease.consumed,
        amounts: new Map([[`${lease.target.scope}:${lease.target.subjectId}`, lease.target.amountMicros]]),
        currency: this.options.currency,
      });
      this.all.delete(lease);
      if (raised.length > 0) this.alerted(lease, raised.length);
    } catch (err) {
      // Every write here is safe to repeat: the next pass tries again.
      this.ctx.logger.warn({ err: (err as Error).message }, 'writing a spend lease failed; will retry');
    }
  }

  private async drain(lease: SpendLease): Promise<void> {
    const input = lease.pending ?? {
      usedMicros: lease.consumed,
      heldBefore: lease.held,
      // Open, it keeps its free money for the calls to come; closed, only what its running calls may cost.
      heldAfter: Math.max(
        0,
        lease.open ? lease.held - lease.consumed : Math.min(lease.held - lease.consumed, lease.drawn),
      ),
    };
    lease.pending = input;
    const outcome = await drainSpendLease(this.ctx.db, {
      id: lease.id,
      accountId: lease.accountId,
      target: lease.target,
      ...input,
      ttlMs: this.options.ttlMs,
      currency: this.options.currency,
    });
    lease.pending = undefined;
    lease.consumed -= input.usedMicros;
    if (outcome.kind === 'released') {
      this.ctx.logger.warn({ accountId: lease.accountId }, 'a spend lease expired before it was closed');
      // Its money went back to the budget: nothing more is drawn on it.
      lease.held = 0;
      lease.open = false;
      return;
    }
    lease.held = input.heldAfter;
    if (outcome.kind === 'drained' && outcome.raised.length > 0) this.alerted(lease, outcome.raised.length);
  }

  private alerted(lease: SpendLease, count: number): void {
    this.ctx.logger.info({ accountId: lease.accountId, alerts: count }, 'budget alerts raised');
    this.options.onAlert?.();
  }
}

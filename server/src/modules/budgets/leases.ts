import type { Ctx } from '../../context';
import { free, LeaseBook } from '../../lib/lease-book';
import { SPEND_LEASE_HEADROOM, type SpendLease, type SpendLeaseOf, SpendLeaseRows } from './lease-rows';
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

const keyOf = (accountId: string, t: SpendTarget) =>
  `${accountId}|${t.scope}|${t.subjectId}|${t.period}|${t.periodStart}`;

/**
 * Money budgets off the call path, the token allowance's way (modules/allowance, leases.ts), over the same lease
 * book (lib/lease-book.ts): while a budget has at least SPEND_LEASE_HEADROOM leases' worth left, this instance
 * holds a lease of it, one hold row taken by the same conditional upsert as a call's reservation, and admits
 * calls against it in memory. So budgets stay exact across instances (no lease holds money the budget has not
 * got), while a call costs no database round trip: with a reservation and a settle of two budgets in the
 * database, each call of a budgeted key took 11 round trips queued on the same two row locks
 * (bench/gateway/routing.ts: ~10 × the CPU of an unbudgeted call and tens of ms of latency at 4 calls in
 * flight). Every `flushMs` the spend served is written (raising the alerts it crosses); a lease closes after
 * `maxAgeMs`, or `idleMs` without a call, once its calls are done, like a call's hold. Near the end of a budget
 * every call is reserved exactly in the database, so a budget can be used to the last micro-unit. Costs reach
 * the database up to `flushMs` late, and so do the alerts they raise; money leased by one instance is not
 * available to another until the lease closes (within `idleMs` when idle).
 */
export class SpendLeaseBook {
  private readonly book: LeaseBook<SpendLease, SpendLeaseOf>;
  /** Budgets found too near their end to lease, until when (this clock): their calls go to the database. */
  private readonly nearEnd = new Map<string, number>();

  constructor(
    private readonly ctx: Ctx,
    private readonly options: SpendLeaseOptions,
  ) {
    this.book = new LeaseBook(ctx.clock, ctx.logger, options, new SpendLeaseRows(ctx, options), 'spend');
  }

  get enabled(): boolean {
    return this.options.divisor > 0;
  }

  start(): void {
    if (this.enabled) this.book.start();
  }

  /** Writes what every lease served and closes them (their calls are done by then: the server has drained). */
  stop(): Promise<void> {
    return this.book.stop();
  }

  /** A pass that starts after this call: one already running may have missed what was settled since. */
  flushNow(): Promise<void> {
    return this.book.flushNow();
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
          this.book.release(key);
          if ([...this.book.leasesOf(key)].some((l) => l.held > 0 && free(l) > 0)) await this.book.flushNow();
          return undefined;
        }
        leases.push(lease);
      }
      // Synchronously, so that no other call draws between the check and the draw.
      if (!leases.every((l) => l.open && free(l) >= micros)) continue;
      const now = this.ctx.clock.now();
      for (const l of leases) {
        this.book.draw(l, micros, now);
        // Near its end (by age or by money), the next lease is taken in the background; calls go on meanwhile.
        const size = this.sizeFor(l.target, micros);
        if (this.book.renewDue(l, size, now)) this.book.renew(l.key, l, size);
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
    let current = this.book.current(key);
    // The budget was changed (here, or elsewhere and read again): its lease closes; a new one fits the new amount.
    if (current && current.target.amountMicros !== t.amountMicros) {
      this.book.release(key);
      current = undefined;
    }
    if (current?.open && this.book.usable(current, now) && free(current) >= micros) return current;
    const size = this.sizeFor(t, micros);
    // A budget too small for the headroom, whatever it has spent, is never leased: no need to ask.
    if (SPEND_LEASE_HEADROOM * size > t.amountMicros) return undefined;
    const lease = await this.book.take(key, { accountId, target: t }, size);
    if (!lease) {
      // Looked at again after a second: spend elsewhere may be given back, or the budget raised.
      this.nearEnd.set(key, this.ctx.clock.now() + 1_000);
      if (this.nearEnd.size > 100_000) this.nearEnd.clear();
    }
    return lease;
  }

  private sizeFor(t: SpendTarget, micros: number): number {
    return Math.max(Math.ceil(t.amountMicros / this.options.divisor), 2 * micros);
  }
}

import { eq } from 'drizzle-orm';
import pRetry from 'p-retry';
import type { Ctx } from '../../context';
import { type SpendBudgetRow, spendBudgets } from '../../db/schema';
import { newId } from '../../lib/ids';
import type { Principal } from '../../principal';
import { spendBudgetExceeded } from './errors';
import { SpendLeaseBook } from './leases';
import { releaseExpiredSpend, reserveSpend, settleSpend } from './statements';
import { targetsOf } from './targets';
import type { SpendHold, SpendReserver } from './types';

const SETTLE_RETRY = { retries: 2, minTimeout: 200, factor: 2 };

export interface SpendGuardOptions {
  currency: string;
  /** How old an account's cached budgets may be before they are read again (default 1 s). */
  budgetsTtlMs?: number;
  /** A hold not settled after this long is taken for lost (its process died) and given back. */
  holdTtlMs?: number;
  sweepIntervalMs?: number;
  /** Told of each alert raised, so the webhook loop can deliver it at once rather than at its next poll. */
  onAlert?: () => void;
  /** A budget's lease is its amount ÷ this (leases.ts); 0 reserves every call in the database. Default 256. */
  leaseDivisor?: number;
  /** How often leases write what they served (default 250 ms). */
  leaseFlushMs?: number;
}

/**
 * Money budgets on the call path: an account's budgets are read once a second at most (a budget set on this
 * instance applies at once, on another within the TTL), and a call that some budget binds reserves its
 * worst-case cost before it runs, against this instance's lease of each budget in memory (leases.ts) or, near a
 * budget's end, in the database (statements.ts), so concurrent calls on any number of instances never spend
 * more than a budget. Calls no budget binds touch no database.
 */
export class SpendGuard implements SpendReserver {
  private readonly cache = new Map<string, { at: number; rows: SpendBudgetRow[]; refreshing: boolean }>();
  private readonly firstReads = new Map<string, Promise<SpendBudgetRow[]>>();
  private readonly ttlMs: number;
  private readonly holdTtlMs: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly leases: SpendLeaseBook;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: SpendGuardOptions,
  ) {
    this.ttlMs = options.budgetsTtlMs ?? 1_000;
    this.holdTtlMs = options.holdTtlMs ?? 15 * 60_000;
    this.leases = new SpendLeaseBook(ctx, {
      divisor: options.leaseDivisor ?? 256,
      currency: options.currency,
      maxAgeMs: 30_000,
      idleMs: 5_000,
      flushMs: options.leaseFlushMs ?? 250,
      ttlMs: this.holdTtlMs,
      onAlert: options.onAlert,
    });
  }

  get currency(): string {
    return this.options.currency;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.options.sweepIntervalMs ?? 60_000);
    this.timer.unref();
    this.leases.start();
  }

  /** Stops the sweep, writes what the leases served and gives their spare money back. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.leases.stop();
  }

  /** Writes what the leases served so far (they also do so every `leaseFlushMs`). */
  flushLeases(): Promise<void> {
    return this.leases.flushNow();
  }

  /** Drops an account's cached budgets (after a change on this instance). */
  forget(accountId: string): void {
    this.cache.delete(accountId);
    this.firstReads.delete(accountId);
  }

  async sweep(): Promise<number> {
    try {
      const n = await releaseExpiredSpend(this.ctx.db);
      if (n > 0) this.ctx.logger.warn({ released: n }, 'released spend holds that were never settled');
      return n;
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message }, 'spend sweep failed; will retry');
      return 0;
    }
  }

  /**
   * The account's budgets. Only an account's first call waits for the read; after that a call gets what is
   * cached and, when it is older than the TTL, starts one read in the background (stale while revalidating),
   * so no call waits on the database for an account without budgets.
   */
  private budgets(accountId: string): Promise<SpendBudgetRow[]> | SpendBudgetRow[] {
    const now = this.ctx.clock.now();
    const cached = this.cache.get(accountId);
    if (cached && (now - cached.at < this.ttlMs || cached.refreshing)) return cached.rows;
    const read = this.ctx.db.select().from(spendBudgets).where(eq(spendBudgets.accountId, accountId));
    if (!cached) {
      // Calls of a new account arriving together share one read.
      const inflight = this.firstReads.get(accountId);
      if (inflight) return inflight;
      const pending = Promise.resolve(read)
        .then((rows) => {
          this.cache.set(accountId, { at: this.ctx.clock.now(), rows, refreshing: false });
          return rows;
        })
        .finally(() => this.firstReads.delete(accountId));
      this.firstReads.set(accountId, pending);
      return pending;
    }
    cached.refreshing = true;
    Promise.resolve(read).then(
      (rows) => this.cache.set(accountId, { at: this.ctx.clock.now(), rows, refreshing: false }),
      (err: unknown) => {
        // Keep the rows we had; the next call tries again.
        cached.refreshing = false;
        this.ctx.logger.warn({ err: (err as Error).message }, 'reading spend budgets failed; will retry');
      },
    );
    return cached.rows;
  }

  async reserve(principal: Principal, maxMicros: number | null): Promise<SpendHold | undefined> {
    // Test keys are served by the simulator and spend nothing; an unpriced model's cost is unknown.
    if (principal.mode !== 'live' || maxMicros === null) return undefined;
    const rows = await this.budgets(principal.accountId);
    if (this.cache.size > 100_000) this.cache.clear();
    if (rows.length === 0) return undefined;
    const nowMs = this.ctx.clock.now();
    const targets = targetsOf(rows, principal, nowMs);
    if (targets.length === 0) return undefined;
    const micros = Math.max(0, Math.ceil(maxMicros));
    // Away from a budget's end, a lease of it admits the call in memory (leases.ts).
    const leased = await this.leases.draw(principal.accountId, targets, micros);
    if (leased) return leased;
    const id = newId('spd');
    const result = await reserveSpend(this.ctx.db, {
      id,
      accountId: principal.accountId,
      micros,
      ttlMs: this.holdTtlMs,
      targets,
    });
    if (!result.ok) {
      throw spendBudgetExceeded({
        target: result.target,
        current: result.current,
        requestedMicros: micros,
        currency: this.options.currency,
        nowMs,
      });
    }
    const amounts = new Map(targets.map((t) => [`${t.scope}:${t.subjectId}`, t.amountMicros]));
    let settled: Promise<void> | undefined;
    return {
      settle: (costMicros: number) => {
        settled ??= this.settle(id, principal, Math.max(0, Math.round(costMicros) || 0), amounts);
        return settled;
      },
    };
  }

  private async settle(
    id: string,
    principal: Principal,
    costMicros: number,
    amounts: ReadonlyMap<string, number>,
  ): Promise<void> {
    try {
      // Idempotent (it deletes the holds it settles), so safe to retry.
      const raised = await pRetry(
        () =>
          settleSpend(this.ctx.db, {
            id,
            accountId: principal.accountId,
            costMicros,
            amounts,
            currency: this.options.currency,
          }),
        SETTLE_RETRY,
      );
      if (raised.length > 0) {
        this.ctx.logger.info({ accountId: principal.accountId, alerts: raised }, 'budget alerts raised');
        this.options.onAlert?.();
      }
    } catch (err) {
      this.ctx.logger.error({ err, keyId: principal.keyId }, 'settling a spend hold failed');
    }
  }
}

import type { KeyTokenBudget } from '@tessera/shared';
import { and, eq } from 'drizzle-orm';
import pRetry from 'p-retry';
import type { Ctx } from '../../context';
import { allowancePeriods } from '../../db/schema';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import type { Principal } from '../../principal';
import { insufficientQuota } from './errors';
import { keyBudgetExceeded, keyBudgetPeriod, readKeyBudget, reserveWithKeyBudget } from './key-budget';
import { TokenLeaseBook } from './leases';
import { type AllowancePeriod, periodOf } from './period';
import { type Counters, releaseExpired, reserveTokens, settleReservation } from './statements';
import type { AllowanceStatus, Reservation, TokenAllowance } from './types';
import { AllowanceViews } from './views';

const SETTLE_RETRY = { retries: 2, minTimeout: 200, factor: 2 };

export interface MonthlyAllowanceOptions {
  /** How old the in-memory view of an account may be before a background refresh. */
  viewTtlMs?: number;
  maxViews?: number;
  /** A reservation not settled after this long is taken for lost (its process died) and given back. */
  reservationTtlMs?: number;
  sweepIntervalMs?: number;
  /** Tokens an instance leases at a time for calls admitted in memory (0, the default here: never). */
  leaseTokens?: number;
  /** A lease takes no new calls after this long (default 30 s)… */
  leaseMaxAgeMs?: number;
  /** …nor once this long has passed without a call (default 5 s). */
  leaseIdleMs?: number;
  leaseFlushMs?: number;
}

/**
 * The monthly token allowance in Postgres (allowance_periods). Reservations are exact across instances:
 * one conditional upsert admits a reservation only while used + reserved + n ≤ the limit. Status (for the
 * rate-limit headers) comes from an in-memory view per account, refreshed in the background once it is
 * older than a second and updated at once by this instance's own reservations and settlements.
 */
export class MonthlyTokenAllowance implements TokenAllowance {
  private readonly views: AllowanceViews;
  private readonly reservationTtlMs: number;
  private readonly sweepIntervalMs: number;
  private readonly leases: TokenLeaseBook;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Ctx,
    options: MonthlyAllowanceOptions = {},
  ) {
    this.views = new AllowanceViews(ctx, {
      ttlMs: options.viewTtlMs ?? 1_000,
      maxViews: options.maxViews ?? 100_000,
    });
    // Far beyond any model call (MODEL_TIMEOUT_MS is per call; long streams take minutes, not a quarter hour).
    this.reservationTtlMs = options.reservationTtlMs ?? 15 * 60_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.leases = new TokenLeaseBook(
      ctx,
      {
        tokens: options.leaseTokens ?? 0,
        maxAgeMs: options.leaseMaxAgeMs ?? 30_000,
        idleMs: options.leaseIdleMs ?? 5_000,
        flushMs: options.leaseFlushMs ?? 250,
        ttlMs: this.reservationTtlMs,
      },
      (accountId, period, row) => this.views.remember(accountId, period, row),
    );
  }

  /** Starts the sweep that gives back reservations of calls whose process died. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.timer.unref();
    this.leases.start();
  }

  /** Stops the sweep, gives back leased tokens and writes the usage they served. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.leases.stop();
  }

  /**
   * Closes every lease now: those whose calls are all settled give their tokens back at once (the others as
   * their calls end). What shutdown does; also lets a test see reservations return to zero.
   */
  closeLeases(): Promise<void> {
    return this.leases.flush(true);
  }

  /** Writes the usage served by leases now (normally every `leaseFlushMs`); closes expired leases. */
  flushLeases(): Promise<void> {
    return this.leases.flush(false);
  }

  /** One sweep; safe on every instance at once (row locks make each release happen once). */
  async sweep(): Promise<number> {
    try {
      const released = await releaseExpired(this.ctx.db);
      if (released > 0)
        this.ctx.logger.warn({ released }, 'released token reservations that were never settled');
      return released;
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message }, 'allowance sweep failed; will retry');
      return 0;
    }
  }

  async reserve(principal: Principal, tokens: number): Promise<Reservation> {
    if (!Number.isFinite(tokens) || tokens < 0) {
      throw new ServiceError('internal', `invalid token reservation: ${tokens}`);
    }
    const n = Math.ceil(tokens);
    // Test keys are served by the simulator and never consume the allowance.
    if (principal.mode === 'test') return { tokens: n, async settle() {} };
    const nowMs = this.ctx.clock.now();
    const period = periodOf(nowMs);
    const limit = principal.limits.monthlyTokens;
    const budget = principal.access?.tokenBudget;
    // A key with a budget of its own is reserved exactly, key and account together, never from a lease.
    if (budget) return this.reserveBudgeted(principal, n, budget, nowMs);
    if (this.leases.enabled && n <= limit) {
      const view =
        this.views.known(principal.accountId, period.start) ??
        (await this.views.get(principal.accountId, period.start));
      const lease = await this.leases.draw({
        accountId: principal.accountId,
        period: period.start,
        tokens: n,
        limit,
        remaining: limit - view.used - view.reserved,
      });
      if (lease) {
        let settled = false;
        const leases = this.leases;
        return {
          tokens: n,
          settle(usedTokens: number) {
            if (!settled) leases.settle(lease, n, Math.max(0, Math.ceil(usedTokens) || 0));
            settled = true;
            return Promise.resolve();
          },
        };
      }
    }
    const id = newId('rsv');
    const row =
      n <= limit
        ? await reserveTokens(this.ctx.db, {
            id,
            accountId: principal.accountId,
            period: period.start,
            tokens: n,
            limit,
            ttlMs: this.reservationTtlMs,
          })
        : undefined;
    if (!row) {
      const current = await this.read(principal.accountId, period.start);
      throw insufficientQuota({
        plan: principal.plan,
        limit,
        remaining: Math.max(0, limit - current.used - current.reserved),
        requested: n,
        period,
        nowMs,
      });
    }
    this.views.remember(principal.accountId, period.start, row);
    return this.reservation(id, principal.accountId, period, n);
  }

  private async reserveBudgeted(
    principal: Principal,
    n: number,
    budget: KeyTokenBudget,
    nowMs: number,
  ): Promise<Reservation> {
    const period = periodOf(nowMs);
    const keyPeriod = keyBudgetPeriod(budget.period, nowMs);
    const limit = principal.limits.monthlyTokens;
    const id = newId('rsv');
    const result =
      n <= budget.tokens && n <= limit
        ? await reserveWithKeyBudget(this.ctx.db, {
            id,
            accountId: principal.accountId,
            period: period.start,
            tokens: n,
            limit,
            ttlMs: this.reservationTtlMs,
            keyId: principal.keyId,
            budget,
            keyPeriodStart: keyPeriod.start,
          })
        : ({ ok: false, refusedBy: n > budget.tokens ? 'key' : 'plan' } as const);
    if (result.ok) {
      this.views.remember(principal.accountId, period.start, result.account);
      return this.reservation(id, principal.accountId, period, n);
    }
    if (result.refusedBy === 'key') {
      const key =
        'key' in result
          ? result.key
          : await readKeyBudget(this.ctx.db, principal.keyId, budget.period, keyPeriod.start);
      throw keyBudgetExceeded({
        budget,
        remaining: Math.max(0, budget.tokens - key.used - key.reserved),
        requested: n,
        period: keyPeriod,
        nowMs,
      });
    }
    const current = await this.read(principal.accountId, period.start);
    throw insufficientQuota({
      plan: principal.plan,
      limit,
      remaining: Math.max(0, limit - current.used - current.reserved),
      requested: n,
      period,
      nowMs,
    });
  }

  /**
   * What the token headers show: the account's month, or the key's own budget when that leaves fewer tokens
   * (the limit a caller will meet first). A budgeted key's figure is one read of its period row; unbudgeted
   * keys stay on the in-memory view.
   */
  status(principal: Principal): AllowanceStatus | Promise<AllowanceStatus> {
    const budget = principal.access?.tokenBudget;
    if (!budget || principal.mode !== 'live') {
      // From the in-memory view when it holds the account's period (the request path's case): no promise.
      const period = periodOf(this.ctx.clock.now());
      const view = this.views.known(principal.accountId, period.start);
      if (view) return this.statusFrom(view, principal.accountId, principal.limits.monthlyTokens, period);
      return this.accountStatus(principal.accountId, principal.limits.monthlyTokens);
    }
    return this.keyStatus(principal, budget);
  }

  private async keyStatus(principal: Principal, budget: KeyTokenBudget): Promise<AllowanceStatus> {
    const account = await this.accountStatus(principal.accountId, principal.limits.monthlyTokens);
    const keyPeriod = keyBudgetPeriod(budget.period, this.ctx.clock.now());
    const key = await readKeyBudget(this.ctx.db, principal.keyId, budget.period, keyPeriod.start);
    const remaining = Math.max(0, budget.tokens - key.used - key.reserved);
    return remaining < account.remaining
      ? { limit: budget.tokens, used: key.used, remaining, resetsAt: keyPeriod.resetsAt }
      : account;
  }

  async accountStatus(accountId: string, monthlyTokens: number): Promise<AllowanceStatus> {
    const nowMs = this.ctx.clock.now();
    const period = periodOf(nowMs);
    const view = await this.views.get(accountId, period.start);
    return this.statusFrom(view, accountId, monthlyTokens, period);
  }

  private statusFrom(
    view: Counters,
    accountId: string,
    monthlyTokens: number,
    period: AllowancePeriod,
  ): AllowanceStatus {
    // This instance's leases: usage not written yet, and leased tokens it has not handed to a call.
    const own = this.leases.adjustment(accountId, period.start);
    const used = view.used + own.consumed;
    const limit = monthlyTokens;
    const remaining = Math.min(limit - used, limit - view.used - view.reserved + own.free);
    return { limit, used, remaining: Math.max(0, remaining), resetsAt: period.resetsAt };
  }

  private reservation(id: string, accountId: string, period: AllowancePeriod, tokens: number): Reservation {
    let settled: Promise<void> | undefined;
    return {
      tokens,
      settle: (usedTokens: number) => {
        // Idempotent: the first call settles, later calls share its outcome.
        settled ??= this.settle(id, accountId, period.start, Math.max(0, Math.ceil(usedTokens) || 0));
        return settled;
      },
    };
  }

  private async settle(id: string, accountId: string, period: string, used: number): Promise<void> {
    // Safe to retry: the statement is idempotent (it deletes the reservation it settles). Three tries, 200 and
    // 400 ms apart.
    const row = await pRetry(
      () => settleReservation(this.ctx.db, { id, accountId, period, used }),
      SETTLE_RETRY,
    );
    if (row) this.views.remember(accountId, period, row);
  }

  private async read(accountId: string, period: string): Promise<Counters> {
    const [row] = await this.ctx.db
      .select({ used: allowancePeriods.used, reserved: allowancePeriods.reserved })
      .from(allowancePeriods)
      .where(and(eq(allowancePeriods.accountId, accountId), eq(allowancePeriods.periodStart, period)));
    return row ?? { used: 0, reserved: 0 };
  }
}

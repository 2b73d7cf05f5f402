import type { Ctx } from '../../context';
import { free, LeaseBook } from '../../lib/lease-book';
import { type Lease, LeaseRows, type TokenLeaseOf } from './lease-rows';
import type { Counters } from './statements';

export interface LeaseOptions {
  /** Tokens per lease (a call larger than half of it gets a lease of twice its size); 0 disables leasing. */
  tokens: number;
  /** A lease takes no new calls after this long; it is then drained and closed. */
  maxAgeMs: number;
  /**
   * Nor once this long has passed without a call: an idle lease gives its spare tokens back well before its
   * age, while calls that come a few seconds apart keep finding it open instead of waiting for the database.
   */
  idleMs: number;
  /** How often usage served by leases is written. */
  flushMs: number;
  /** Expiry of the lease row, after which the sweep gives its tokens back (the instance died). */
  ttlMs: number;
}

/** Leases are taken only while an account has at least this many leases' worth of tokens left. */
export const LEASE_HEADROOM = 16;

/**
 * This instance's token leases (lease-rows.ts), by account and period, in a lease book (lib/lease-book.ts):
 * admits calls against them in memory and writes what they served every `flushMs`. A lease takes new calls for
 * `maxAgeMs`, or until `idleMs` pass without one, then closes once they are done, unless the database cannot be
 * reached: it is then kept and drawn on (see `Lease`).
 */
export class TokenLeaseBook {
  private readonly rows: LeaseRows;
  private readonly book: LeaseBook<Lease, TokenLeaseOf>;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: LeaseOptions,
    onCounters: (accountId: string, period: string, counters: Counters) => void,
  ) {
    this.rows = new LeaseRows(ctx, options.ttlMs, onCounters);
    this.book = new LeaseBook(ctx.clock, ctx.logger, options, this.rows, 'token');
  }

  get enabled(): boolean {
    return this.options.tokens > 0;
  }

  start(): void {
    if (this.enabled) this.book.start();
  }

  /** Stops the timer, then closes every lease whose calls are done and writes what the others served. */
  stop(): Promise<void> {
    return this.book.stop();
  }

  /** One pass over the leases (`closing`: every lease closes once its calls are done); concurrent callers share it. */
  flush(closing: boolean): Promise<void> {
    return this.book.flush(closing);
  }

  /**
   * Admits a call of `tokens` against this instance's lease for the account, taking a new lease when needed.
   * Undefined when leasing does not apply (disabled, or the account is near its limit): the caller then
   * reserves the call in the database on its own.
   */
  async draw(input: {
    accountId: string;
    period: string;
    tokens: number;
    limit: number;
    /** What the account has left as this instance last saw it. */
    remaining: number;
  }): Promise<Lease | undefined> {
    if (!this.enabled) return undefined;
    const { tokens } = input;
    const key = `${input.accountId}|${input.period}`;
    const size = Math.max(this.options.tokens, 2 * tokens);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = this.book.current(key);
      const now = this.ctx.clock.now();
      if (current?.open && this.book.usable(current, now) && free(current) >= tokens) {
        this.book.draw(current, tokens, now);
        // Near its end, the next lease is taken in the background while the database can be reached and the
        // account has the headroom for it.
        if (
          this.book.renewDue(current, size, now) &&
          this.rows.reachable &&
          input.remaining + free(current) >= LEASE_HEADROOM * size
        ) {
          this.book.renew(key, input, size);
        }
        return current;
      }
      const kept = this.rows.reachable ? undefined : this.kept(key, tokens);
      if (kept) return kept;
      if (input.remaining + (current ? free(current) : 0) < LEASE_HEADROOM * size) return undefined;
      try {
        if (!(await this.book.take(key, input, size))) return undefined;
      } catch (err) {
        // No new lease: a kept one still serves, else the error (a 503 when the database is unreachable).
        const held = this.kept(key, tokens);
        if (held) return held;
        throw err;
      }
    }
    return undefined;
  }

  /**
   * Draws on a lease kept through an outage: past its age, but its tokens are still held in the database and
   * no sweep can release them before half its expiry has passed.
   */
  private kept(key: string, tokens: number): Lease | undefined {
    const now = this.ctx.clock.now();
    for (const lease of this.book.leasesOf(key)) {
      if (lease.closing || lease.held <= 0 || free(lease) < tokens) continue;
      if (now >= lease.expiresAt - this.options.ttlMs / 2) continue;
      lease.drawn += tokens;
      return lease;
    }
    return undefined;
  }

  /** The call is over: its tokens leave the lease's drawn share and its real usage waits to be written. */
  settle(lease: Lease, tokens: number, used: number): void {
    lease.drawn -= tokens;
    lease.consumed += used;
  }

  /** What this instance's leases change in the account's counters as the database last showed them. */
  adjustment(accountId: string, period: string): { consumed: number; free: number } {
    let consumed = 0;
    let spare = 0;
    for (const lease of this.book.leasesOf(`${accountId}|${period}`)) {
      consumed += lease.consumed;
      spare += free(lease);
    }
    return { consumed, free: spare };
  }
}

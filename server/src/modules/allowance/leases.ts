import type { Ctx } from '../../context';
import { free, type Lease, LeaseRows } from './lease-rows';
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

/** The next lease is taken once the current one is this far through its age or its tokens. */
const RENEW_AT = 0.75;

/**
 * This instance's leases (lease-rows.ts), by account and period: admits calls against them in memory and
 * writes what they served every `flushMs`. A lease takes new calls for `maxAgeMs`, or until `idleMs` pass without
 * one, then closes once they are done, unless the database cannot be reached: it is then kept and drawn on (see
 * `Lease`).
 */
export class LeaseBook {
  private readonly open = new Map<string, Lease>();
  private readonly byKey = new Map<string, Set<Lease>>();
  private readonly acquiring = new Map<string, Promise<Lease | undefined>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly rows: LeaseRows;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: LeaseOptions,
    onCounters: (accountId: string, period: string, counters: Counters) => void,
  ) {
    this.rows = new LeaseRows(ctx, options.ttlMs, onCounters);
  }

  get enabled(): boolean {
    return this.options.tokens > 0;
  }

  start(): void {
    if (this.timer || !this.enabled) return;
    this.timer = setInterval(() => void this.flush(false), this.options.flushMs);
    this.timer.unref();
  }

  /** Stops the timer, then closes every lease whose calls are done and writes what the others served. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
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
    const { accountId, period, tokens } = input;
    const key = `${accountId}|${period}`;
    const size = Math.max(this.options.tokens, 2 * tokens);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = this.open.get(key);
      const now = this.ctx.clock.now();
      const age = current ? now - current.openedAt : 0;
      if (current?.open && this.usable(current, now) && free(current) >= tokens) {
        current.drawn += tokens;
        current.lastDrawAt = now;
        // Near its end (by age or by tokens), the next lease is taken in the background: calls then go on
        // drawing on this one meanwhile instead of waiting for the database when it runs out.
        if (
          (age >= this.options.maxAgeMs * RENEW_AT || free(current) < size * (1 - RENEW_AT)) &&
          this.rows.reachable &&
          !this.acquiring.has(key) &&
          input.remaining + free(current) >= LEASE_HEADROOM * size
        ) {
          this.acquire(key, accountId, period, size, input.limit).catch((err: unknown) => {
            this.ctx.logger.warn({ err: (err as Error).message }, 'taking the next token lease failed');
          });
        }
        return current;
      }
      const kept = this.rows.reachable ? undefined : this.kept(key, tokens);
      if (kept) return kept;
      if (input.remaining + (current ? free(current) : 0) < LEASE_HEADROOM * size) return undefined;
      try {
        if (!(await (this.acquiring.get(key) ?? this.acquire(key, accountId, period, size, input.limit))))
          return undefined;
      } catch (err) {
        // No new lease: a kept one still serves, else the error (a 503 when the database is unreachable).
        const held = this.kept(key, tokens);
        if (held) return held;
        throw err;
      }
    }
    return undefined;
  }

  /** Whether a lease may still take new calls: younger than its age, and not idle for `idleMs`. */
  private usable(lease: Lease, now: number): boolean {
    return now - lease.openedAt < this.options.maxAgeMs && now - lease.lastDrawAt < this.options.idleMs;
  }

  /**
   * Draws on a lease kept through an outage: past its age, but its tokens are still held in the database and
   * no sweep can release them before half its expiry has passed.
   */
  private kept(key: string, tokens: number): Lease | undefined {
    const now = this.ctx.clock.now();
    for (const lease of this.byKey.get(key) ?? []) {
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
    for (const lease of this.byKey.get(`${accountId}|${period}`) ?? []) {
      consumed += lease.consumed;
      spare += free(lease);
    }
    return { consumed, free: spare };
  }

  /** Takes a new lease; calls of the same account and period arriving meanwhile share it. */
  private acquire(
    key: string,
    accountId: string,
    period: string,
    size: number,
    limit: number,
  ): Promise<Lease | undefined> {
    const pending = this.rows
      .take(key, accountId, period, size, limit)
      .then((lease) => lease && this.install(key, lease))
      .finally(() => this.acquiring.delete(key));
    this.acquiring.set(key, pending);
    return pending;
  }

  /** A new lease takes the calls from here on; the one it replaces closes once its calls are done. */
  private install(key: string, lease: Lease): Lease {
    const previous = this.open.get(key);
    if (previous) previous.open = false;
    this.open.set(key, lease);
    const set = this.byKey.get(key) ?? new Set<Lease>();
    set.add(lease);
    this.byKey.set(key, set);
    return lease;
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
    // Closing waits for the leases being taken: one whose row is written but not yet installed here would
    // otherwise stay open, its tokens reserved until it expired.
    if (closing && this.acquiring.size > 0) await Promise.allSettled([...this.acquiring.values()]);
    const now = this.ctx.clock.now();
    const work: Promise<void>[] = [];
    for (const [key, set] of this.byKey) {
      for (const lease of set) {
        if (lease.writing) continue;
        if (closing || !this.usable(lease, now)) lease.open = false;
        if (!lease.open && this.open.get(key) === lease) this.open.delete(key);
        lease.writing = true;
        work.push(
          this.rows
            .write(lease, closing)
            .then((closed) => {
              if (!closed) return;
              set.delete(lease);
              if (set.size === 0) this.byKey.delete(key);
            })
            .finally(() => {
              lease.writing = false;
            }),
        );
      }
    }
    await Promise.all(work);
  }
}

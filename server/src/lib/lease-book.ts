import type { Logger } from '../logger';
import type { Clock } from './clock';

/**
 * A block of a shared limit (an account's token allowance, a budget's money) held by this instance as one row
 * in the database, from which calls are admitted in memory. The store's lease adds its row's own figures.
 */
export interface BookLease {
  readonly key: string;
  readonly openedAt: number;
  /** When a call last drew on it (this clock). */
  lastDrawAt: number;
  /** Units the lease's row holds in the database. */
  held: number;
  /** Units of calls admitted against the lease and not settled yet (their worst cases). */
  drawn: number;
  /** Real usage of settled calls, not written yet. */
  consumed: number;
  /** Whether new calls may draw on it. */
  open: boolean;
  /** A write of it is running: the next pass leaves it alone. */
  writing: boolean;
}

export const free = (lease: BookLease) => lease.held - lease.drawn - lease.consumed;

/** A lease just taken: `size` units held, none drawn, open to calls. */
export const newLease = (key: string, size: number, now: number): BookLease => ({
  key,
  openedAt: now,
  lastDrawAt: now,
  held: size,
  drawn: 0,
  consumed: 0,
  open: true,
  writing: false,
});

/** A lease's row in the database; `W` says what a new lease is of (account and period, or a budget). */
export interface LeaseStore<L extends BookLease, W> {
  /** A new lease of `size` units, its row written; undefined when the limit cannot give them. */
  take(key: string, of: W, size: number): Promise<L | undefined>;
  /**
   * Writes what the lease served, and closes it when it is due (`closing`: the book is stopping). True once the
   * lease is closed: the book then forgets it. A write that throws is tried again on the next pass.
   */
  write(lease: L, closing: boolean): Promise<boolean>;
}

export interface LeaseTimes {
  /** A lease takes no new calls after this long; it is then written and closed once its calls are done. */
  maxAgeMs: number;
  /** Nor once this long has passed without a call. */
  idleMs: number;
  /** How often what the leases served is written. */
  flushMs: number;
}

/** The next lease is taken in the background once the current one is this far through its age or its units. */
const RENEW_AT = 0.75;

/**
 * The leases of one kind this instance holds, by key: which one takes new calls, taking a new one (calls that
 * arrive meanwhile share the take), renewing it near its end, and a pass every `flushMs` that writes what each
 * served and closes those past their age or idle. When to drain and when to close is the store's (the token
 * allowance keeps leases through a database outage; a budget gives a closed lease's spare money back at once).
 */
export class LeaseBook<L extends BookLease, W> {
  private readonly open = new Map<string, L>();
  private readonly byKey = new Map<string, Set<L>>();
  private readonly acquiring = new Map<string, Promise<L | undefined>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly times: LeaseTimes,
    private readonly store: LeaseStore<L, W>,
    /** What the leases are of, in log lines ("token", "spend"). */
    private readonly kind: string,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(false), this.times.flushMs);
    this.timer.unref();
  }

  /** Stops the timer, then closes every lease whose calls are done and writes what the others served. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
  }

  /** The lease that takes the key's new calls (it may be past its age or idle: see `usable`). */
  current(key: string): L | undefined {
    return this.open.get(key);
  }

  /** Every lease of the key this instance still holds, the current one and those closing. */
  leasesOf(key: string): Iterable<L> {
    return this.byKey.get(key) ?? [];
  }

  /** Whether a lease may still take new calls: younger than its age, and not idle for `idleMs`. */
  usable(lease: L, now: number): boolean {
    return now - lease.openedAt < this.times.maxAgeMs && now - lease.lastDrawAt < this.times.idleMs;
  }

  /** A call of `units` is admitted against the lease. */
  draw(lease: L, units: number, now: number): void {
    lease.drawn += units;
    lease.lastDrawAt = now;
  }

  /** Whether the next lease is due (the current one is near its end by age or by units) and not being taken. */
  renewDue(lease: L, size: number, now: number): boolean {
    if (this.acquiring.has(lease.key)) return false;
    return now - lease.openedAt >= this.times.maxAgeMs * RENEW_AT || free(lease) < size * (1 - RENEW_AT);
  }

  /** Takes the next lease in the background: calls go on drawing on the current one meanwhile. */
  renew(key: string, of: W, size: number): void {
    this.take(key, of, size).catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, `taking the next ${this.kind} lease failed`);
    });
  }

  /** A new lease that takes the key's calls from here on; calls of the same key arriving meanwhile share it. */
  take(key: string, of: W, size: number): Promise<L | undefined> {
    const running = this.acquiring.get(key);
    if (running) return running;
    const pending = this.store
      .take(key, of, size)
      .then((lease) => lease && this.install(key, lease))
      .finally(() => this.acquiring.delete(key));
    this.acquiring.set(key, pending);
    return pending;
  }

  /** Closes the key's current lease to new calls: the next pass writes it and gives its spare back. */
  release(key: string): void {
    const lease = this.open.get(key);
    if (!lease) return;
    lease.open = false;
    this.open.delete(key);
  }

  /** The one it replaces closes once its calls are done. */
  private install(key: string, lease: L): L {
    const previous = this.open.get(key);
    if (previous) previous.open = false;
    this.open.set(key, lease);
    const set = this.byKey.get(key) ?? new Set<L>();
    set.add(lease);
    this.byKey.set(key, set);
    return lease;
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
    // Closing waits for the leases being taken: one whose row is written but not yet installed here would
    // otherwise stay open, its units held until its row expired.
    if (closing && this.acquiring.size > 0) await Promise.allSettled([...this.acquiring.values()]);
    const now = this.clock.now();
    const work: Promise<void>[] = [];
    for (const [key, set] of this.byKey) {
      for (const lease of set) {
        if (lease.writing) continue;
        if (closing || !this.usable(lease, now)) lease.open = false;
        if (!lease.open && this.open.get(key) === lease) this.open.delete(key);
        lease.writing = true;
        work.push(
          this.store
            .write(lease, closing)
            .then(
              (closed) => {
                if (!closed) return;
                set.delete(lease);
                if (set.size === 0) this.byKey.delete(key);
              },
              (err: unknown) => {
                // Every write is safe to repeat: the next pass tries again.
                this.logger.warn(
                  { err: (err as Error).message },
                  `writing a ${this.kind} lease failed; will retry`,
                );
              },
            )
            .finally(() => {
              lease.writing = false;
            }),
        );
      }
    }
    await Promise.all(work);
  }
}

import type { Ctx } from '../../context';
import { newId } from '../../lib/ids';
import {
  addUsage,
  type Counters,
  drainLease,
  leaseTokens,
  reserveTokens,
  settleReservation,
} from './statements';

/**
 * A block of an account's allowance held by this instance: one reservation row in the database, from which
 * calls are admitted in memory. The database never gives out more than the limit (the lease is taken by the
 * same conditional upsert as a single call's reservation), so leasing keeps the allowance exact across
 * instances; what it changes is when usage reaches the database (within `flushMs`) and that tokens leased by
 * one instance are not available to another until the lease is drained or closed (within `maxAgeMs` when idle).
 */
export interface Lease {
  readonly id: string;
  readonly key: string;
  readonly accountId: string;
  readonly period: string;
  readonly openedAt: number;
  /** Tokens the lease row holds in the database. */
  held: number;
  /** Tokens of calls admitted against the lease and not settled yet. */
  drawn: number;
  /** Real usage of settled calls, not written yet. */
  consumed: number;
  /** Whether new calls may draw on it. */
  open: boolean;
  writing: boolean;
}

export interface LeaseOptions {
  /** Tokens per lease (a call larger than half of it gets a lease of twice its size); 0 disables leasing. */
  tokens: number;
  /** A lease takes no new calls after this long; it is then drained and closed. */
  maxAgeMs: number;
  /** How often usage served by leases is written. */
  flushMs: number;
  /** Expiry of the lease row, after which the sweep gives its tokens back (the instance died). */
  ttlMs: number;
}

/** Leases are taken only while an account has at least this many leases' worth of tokens left. */
export const LEASE_HEADROOM = 16;

const free = (lease: Lease) => lease.held - lease.drawn - lease.consumed;

export class LeaseBook {
  private readonly open = new Map<string, Lease>();
  private readonly byKey = new Map<string, Set<Lease>>();
  private readonly acquiring = new Map<string, Promise<Lease | undefined>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: LeaseOptions,
    private readonly onCounters: (accountId: string, period: string, counters: Counters) => void,
  ) {}

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
      if (
        current?.open &&
        this.ctx.clock.now() - current.openedAt < this.options.maxAgeMs &&
        free(current) >= tokens
      ) {
        current.drawn += tokens;
        return current;
      }
      if (input.remaining + (current ? free(current) : 0) < LEASE_HEADROOM * size) return undefined;
      let pending = this.acquiring.get(key);
      if (!pending) {
        pending = this.take(key, accountId, period, size, input.limit).finally(() =>
          this.acquiring.delete(key),
        );
        this.acquiring.set(key, pending);
      }
      if (!(await pending)) return undefined;
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

  private async take(
    key: string,
    accountId: string,
    period: string,
    size: number,
    limit: number,
  ): Promise<Lease | undefined> {
    const id = newId('lease');
    const row = await reserveTokens(this.ctx.db, {
      id,
      accountId,
      period,
      tokens: size,
      limit,
      ttlMs: this.options.ttlMs,
    });
    if (!row) return undefined;
    const lease: Lease = {
      id,
      key,
      accountId,
      period,
      openedAt: this.ctx.clock.now(),
      held: size,
      drawn: 0,
      consumed: 0,
      open: true,
      writing: false,
    };
    const previous = this.open.get(key);
    if (previous) previous.open = false;
    this.open.set(key, lease);
    const set = this.byKey.get(key) ?? new Set<Lease>();
    set.add(lease);
    this.byKey.set(key, set);
    this.onCounters(accountId, period, row);
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
    const now = this.ctx.clock.now();
    const work: Promise<void>[] = [];
    for (const [key, set] of this.byKey) {
      for (const lease of set) {
        if (lease.writing) continue;
        if (closing || now - lease.openedAt >= this.options.maxAgeMs) lease.open = false;
        if (!lease.open && this.open.get(key) === lease) this.open.delete(key);
        let write: Promise<void> | undefined;
        if (!lease.open && lease.drawn === 0) write = this.close(lease, set);
        else if (lease.consumed > 0 && lease.held > 0) write = this.drain(lease);
        if (!write) continue;
        lease.writing = true;
        work.push(
          write.finally(() => {
            lease.writing = false;
          }),
        );
      }
    }
    await Promise.all(work);
  }

  /** Settles the lease row like a call's reservation: its usage added, its tokens given back, row deleted. */
  private async close(lease: Lease, set: Set<Lease>): Promise<void> {
    const used = lease.consumed;
    try {
      const row = await settleReservation(this.ctx.db, {
        id: lease.id,
        accountId: lease.accountId,
        period: lease.period,
        used,
      });
      set.delete(lease);
      if (set.size === 0) this.byKey.delete(lease.key);
      // No row: an earlier attempt committed (its reply was lost), and counted the usage then.
      if (row) this.onCounters(lease.accountId, lease.period, row);
    } catch (err) {
      // Idempotent (the row is deleted by the statement that counts it): repeated on the next pass.
      this.ctx.logger.warn({ err: (err as Error).message }, 'closing a token lease failed; will retry');
    }
  }

  /** Writes the usage served so far and shrinks the lease row by it, keeping the lease open. */
  private async drain(lease: Lease): Promise<void> {
    const used = lease.consumed;
    const heldBefore = lease.held;
    const heldAfter = Math.max(0, heldBefore - used);
    const input = {
      id: lease.id,
      accountId: lease.accountId,
      period: lease.period,
      used,
      heldBefore,
      heldAfter,
    };
    try {
      const row = await drainLease(this.ctx.db, input);
      if (row) this.onCounters(lease.accountId, lease.period, row);
      else {
        // Either an earlier attempt committed without its reply reaching us, or the row is gone.
        const tokens = await leaseTokens(this.ctx.db, lease.id);
        if (tokens === undefined) {
          await this.lost(lease, used);
          lease.consumed -= used;
          lease.held = 0;
          lease.open = false;
          return;
        }
        if (tokens !== heldAfter) {
          lease.held = tokens;
          return;
        }
      }
      lease.consumed -= used;
      lease.held = heldAfter;
    } catch (err) {
      this.ctx.logger.warn({ err: (err as Error).message }, 'writing a token lease failed; will retry');
    }
  }

  /** A lease row the sweep released (this instance stalled past its expiry): its usage still counts. */
  private async lost(lease: Lease, used: number): Promise<void> {
    this.ctx.logger.warn({ accountId: lease.accountId }, 'a token lease expired before it was closed');
    const row = await addUsage(this.ctx.db, { accountId: lease.accountId, period: lease.period, used });
    if (row) this.onCounters(lease.accountId, lease.period, row);
  }
}

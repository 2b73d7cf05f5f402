import type { Ctx } from '../../context';
import { newId } from '../../lib/ids';
import { type BookLease, type LeaseStore, newLease } from '../../lib/lease-book';
import {
  addUsage,
  type Counters,
  drainLease,
  leaseRow,
  reserveTokens,
  settleReservation,
} from './statements';

/**
 * A block of an account's allowance held by this instance: one reservation row in the database, from which
 * calls are admitted in memory. The database never gives out more than the limit (the lease is taken by the
 * same conditional upsert as a single call's reservation), so leasing keeps the allowance exact across
 * instances; what it changes is when usage reaches the database (within `flushMs`) and that tokens leased by
 * one instance are not available to another until the lease is drained or closed (within `idleMs` when idle).
 *
 * While the database cannot be reached, leases are kept instead of closed and calls go on drawing on the
 * tokens they hold (already counted against the limit), until half of the row's `ttlMs` has passed since the
 * last write known to have set its expiry: a sweep elsewhere cannot release the row before then, and calls
 * admitted up to that point have the other half to finish in.
 */
export interface Lease extends BookLease {
  readonly id: string;
  readonly accountId: string;
  readonly period: string;
  /** A close was sent: it may have given the tokens back, so nothing draws on the lease again. */
  closing: boolean;
  /** The row's expiry is at least this (this clock): a statement that set it was sent at expiresAt - ttlMs. */
  expiresAt: number;
  /** A drain whose answer was lost: repeated as it was until its outcome is known. */
  pending: (DrainInput & { sentAt: number }) | undefined;
}

/** What a token lease is of. */
export interface TokenLeaseOf {
  accountId: string;
  period: string;
  limit: number;
}

type DrainInput = Omit<Parameters<typeof drainLease>[1], 'ttlMs'>;

const warn = (err: unknown) => ({ err: (err as Error).message });

/**
 * A lease's row in the database: taking it, writing what the lease served, closing it. Every write is safe to
 * repeat after its answer is lost, and a failed one tells the book that the database cannot be reached.
 */
export class LeaseRows implements LeaseStore<Lease, TokenLeaseOf> {
  /** False from a failed lease write to the next one that succeeds. */
  reachable = true;

  constructor(
    private readonly ctx: Ctx,
    private readonly ttlMs: number,
    private readonly onCounters: (accountId: string, period: string, counters: Counters) => void,
  ) {}

  /** A new lease of `size` tokens, or undefined when the limit cannot give them. */
  async take(key: string, of: TokenLeaseOf, size: number): Promise<Lease | undefined> {
    const { accountId, period, limit } = of;
    const id = newId('lease');
    const sentAt = this.ctx.clock.now();
    let row: Counters | undefined;
    try {
      row = await reserveTokens(this.ctx.db, {
        id,
        accountId,
        period,
        tokens: size,
        limit,
        ttlMs: this.ttlMs,
      });
      this.reachable = true;
    } catch (err) {
      this.reachable = false;
      throw err;
    }
    if (!row) return undefined;
    const lease: Lease = {
      ...newLease(key, size, this.ctx.clock.now()),
      id,
      accountId,
      period,
      closing: false,
      expiresAt: sentAt + this.ttlMs,
      pending: undefined,
    };
    this.onCounters(accountId, period, row);
    return lease;
  }

  /**
   * Writes what the lease served, and closes it when it is due (`closing`: whatever the database's state).
   * True once the lease is closed.
   */
  async write(lease: Lease, closing: boolean): Promise<boolean> {
    // A close may already have given the tokens back: only the close itself can be repeated.
    if (lease.closing) return this.close(lease);
    // A drain whose answer was lost is settled first: closing before would count its usage twice.
    if (lease.pending && !(await this.drain(lease))) return false;
    if (lease.open || lease.drawn > 0) {
      if (lease.held > 0 && lease.consumed > 0) await this.drain(lease);
      return false;
    }
    // While the database cannot be reached, a lease due to close is kept: a close whose answer is lost may
    // have given its tokens back, and they could not be drawn on again. A drain (with nothing served, a touch)
    // is tried instead, and once one succeeds the database is back and the lease closes.
    if (!closing && !this.reachable && lease.held > 0 && !(await this.drain(lease))) return false;
    return this.close(lease);
  }

  /** Settles the lease row like a call's reservation: its usage added, its tokens given back, row deleted. */
  private async close(lease: Lease): Promise<boolean> {
    const used = lease.consumed;
    lease.closing = true;
    try {
      const row = await settleReservation(this.ctx.db, {
        id: lease.id,
        accountId: lease.accountId,
        period: lease.period,
        used,
      });
      this.reachable = true;
      // No row: an earlier attempt committed (its reply was lost), and counted the usage then.
      if (row) this.onCounters(lease.accountId, lease.period, row);
      return true;
    } catch (err) {
      this.reachable = false;
      // Idempotent (the row is deleted by the statement that counts it): repeated on the next pass.
      this.ctx.logger.warn(warn(err), 'closing a token lease failed; will retry');
      return false;
    }
  }

  /**
   * Writes the usage served so far and shrinks the lease row by it, keeping the lease open (with nothing
   * served, it only moves the row's expiry). True once the outcome is known.
   */
  private async drain(lease: Lease): Promise<boolean> {
    const input = lease.pending ?? {
      id: lease.id,
      accountId: lease.accountId,
      period: lease.period,
      used: lease.consumed,
      heldBefore: lease.held,
      heldAfter: Math.max(0, lease.held - lease.consumed),
      sentAt: this.ctx.clock.now(),
    };
    // Repeated as it was, never with more usage: the compare-and-set then tells whether it committed.
    lease.pending = input;
    try {
      const row = await drainLease(this.ctx.db, { ...input, ttlMs: this.ttlMs });
      if (row) this.onCounters(lease.accountId, lease.period, row);
      // No row: an earlier attempt committed without its reply reaching us, or the sweep released the row.
      const found = row
        ? { tokens: input.heldAfter, released: false }
        : await leaseRow(this.ctx.db, lease.id);
      const committed = found?.tokens === input.heldAfter;
      if (!committed && found && !found.released) {
        // Only this instance writes its lease rows: not expected; the usage is written again next time.
        this.ctx.logger.error({ lease: lease.id, found, input }, 'a token lease row changed under us');
        lease.held = found.tokens;
        lease.pending = undefined;
        this.reachable = true;
        return true;
      }
      if (!committed) await this.lost(lease, input.used);
      this.reachable = true;
      lease.pending = undefined;
      lease.consumed -= input.used;
      if (found && !found.released) {
        lease.held = found.tokens;
        lease.expiresAt = Math.max(lease.expiresAt, input.sentAt + this.ttlMs);
      } else {
        // Its tokens went back to the account: nothing more is drawn on it.
        lease.held = 0;
        lease.open = false;
      }
      return true;
    } catch (err) {
      this.reachable = false;
      this.ctx.logger.warn(warn(err), 'writing a token lease failed; will retry');
      return false;
    }
  }

  /** A lease row the sweep released (this instance stalled past its expiry): its usage still counts. */
  private async lost(lease: Lease, used: number): Promise<void> {
    this.ctx.logger.warn({ accountId: lease.accountId }, 'a token lease expired before it was closed');
    const row = await addUsage(this.ctx.db, { accountId: lease.accountId, period: lease.period, used });
    if (row) this.onCounters(lease.accountId, lease.period, row);
  }
}

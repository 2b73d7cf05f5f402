import type { Ctx } from '../../context';
import { newId } from '../../lib/ids';
import { type BookLease, free, type LeaseStore, newLease } from '../../lib/lease-book';
import { drainSpendLease, takeSpendLease } from './lease-statements';
import { settleSpend } from './statements';
import type { SpendTarget } from './targets';

/** A block of one budget's period held by this instance (one hold row); calls draw on it in memory. */
export interface SpendLease extends BookLease {
  readonly id: string;
  readonly accountId: string;
  readonly target: SpendTarget;
  /** A drain whose answer was lost: repeated with the same figures until its outcome is known. */
  pending: { usedMicros: number; heldBefore: number; heldAfter: number } | undefined;
}

/** What a spend lease is of. */
export interface SpendLeaseOf {
  accountId: string;
  target: SpendTarget;
}

/** Leases are taken only while a budget has this many leases' worth left (the lease itself included). */
export const SPEND_LEASE_HEADROOM = 16;

/**
 * A spend lease's hold row (lease-statements.ts): taken, drained as the lease serves calls, settled like a call's
 * hold when it closes. Every write is safe to repeat; one that fails is tried again on the book's next pass.
 */
export class SpendLeaseRows implements LeaseStore<SpendLease, SpendLeaseOf> {
  constructor(
    private readonly ctx: Ctx,
    private readonly options: { currency: string; ttlMs: number; onAlert?: () => void },
  ) {}

  async take(key: string, of: SpendLeaseOf, size: number): Promise<SpendLease | undefined> {
    const id = newId('spl');
    const { accountId, target } = of;
    const taken = await takeSpendLease(this.ctx.db, {
      id,
      accountId,
      target,
      micros: size,
      headroomMicros: SPEND_LEASE_HEADROOM * size,
      ttlMs: this.options.ttlMs,
    });
    if (!taken) return undefined;
    return { ...newLease(key, size, this.ctx.clock.now()), id, accountId, target, pending: undefined };
  }

  /** Writes what the lease served; closes it once it takes no calls and none is running. */
  async write(lease: SpendLease): Promise<boolean> {
    // A closed lease whose calls still run keeps their worst cases only: its spare money goes back at once.
    const spare = !lease.open && lease.drawn > 0 && free(lease) > 0;
    if ((lease.pending || lease.consumed > 0 || spare) && lease.held > 0) await this.drain(lease);
    if (lease.open || lease.drawn > 0 || lease.pending) return false;
    // A call's settle: the hold deleted (so a repeat changes nothing), its money back, its spend counted.
    const raised = await settleSpend(this.ctx.db, {
      id: lease.id,
      accountId: lease.accountId,
      costMicros: lease.consumed,
      amounts: new Map([[`${lease.target.scope}:${lease.target.subjectId}`, lease.target.amountMicros]]),
      currency: this.options.currency,
    });
    if (raised.length > 0) this.alerted(lease, raised.length);
    return true;
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

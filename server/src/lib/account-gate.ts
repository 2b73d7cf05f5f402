import { ServiceError } from '../errors';
import { FairQueue } from './fair-queue';

export interface AccountGateOptions {
  /** Operations running at once over all accounts (the database connections they may hold). */
  total: number;
  /** Operations one account may run at once: its share. */
  perAccount: number;
  /** Operations one account may have waiting; the next one is refused. */
  queuePerAccount: number;
}

/** What the gate's operations are called in its 429 (`searches`), and that error's code. */
export interface GateRefusal {
  what: string;
  code: string;
}

/**
 * A share of a limited resource per account (issue 27: one account's flood must not hold every database
 * connection): an operation starts when its account is under its share and a slot is free, otherwise waits in
 * turn with the other accounts' (lib/fair-queue.ts), and is refused past `queuePerAccount` waiting.
 */
export class AccountGate {
  private readonly active = new Map<string, number>();
  private running = 0;
  private readonly queue = new FairQueue<() => void>();

  constructor(
    private readonly options: AccountGateOptions,
    private readonly refusal: GateRefusal = { what: 'operations', code: 'concurrency_exceeded' },
  ) {}

  /** How many of `owner`'s operations run now. */
  runningFor(owner: string): number {
    return this.active.get(owner) ?? 0;
  }

  /**
   * Runs `work` in the account's turn; `refuse` makes the error thrown when too many already wait (by default a
   * 429 naming the gate's operations, retry after a second).
   */
  async run<T>(
    owner: string,
    work: () => Promise<T>,
    refuse: () => Error = () => this.refused(owner),
  ): Promise<T> {
    if (this.mayStart(owner) && this.queue.waiting(owner) === 0) {
      this.started(owner);
    } else {
      if (this.queue.waiting(owner) >= this.options.queuePerAccount) throw refuse();
      // pump() counts the operation as started before it resolves this promise.
      await new Promise<void>((resolve) => this.queue.push(owner, resolve));
    }
    try {
      return await work();
    } finally {
      this.finished(owner);
    }
  }

  private refused(owner: string): ServiceError {
    return new ServiceError(
      'rate_limited',
      `Too many ${this.refusal.what} at once: this account has ${this.runningFor(owner)} running and the most it may queue waiting. Wait for them to finish.`,
      { code: this.refusal.code, retryAfterMs: 1_000 },
    );
  }

  private mayStart(owner: string): boolean {
    return this.running < this.options.total && this.runningFor(owner) < this.options.perAccount;
  }

  private started(owner: string): void {
    this.running += 1;
    this.active.set(owner, this.runningFor(owner) + 1);
  }

  private finished(owner: string): void {
    this.running -= 1;
    const left = this.runningFor(owner) - 1;
    if (left > 0) this.active.set(owner, left);
    else this.active.delete(owner);
    for (;;) {
      const next = this.queue.take((o) => this.mayStart(o));
      if (!next) return;
      this.started(next.owner);
      next.item();
    }
  }
}

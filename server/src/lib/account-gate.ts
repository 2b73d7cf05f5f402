import { FairQueue } from './fair-queue';

export interface AccountGateOptions {
  /** Operations running at once over all accounts (the database connections they may hold). */
  total: number;
  /** Operations one account may run at once: its share. */
  perAccount: number;
  /** Operations one account may have waiting; the next one is refused. */
  queuePerAccount: number;
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

  constructor(private readonly options: AccountGateOptions) {}

  /** How many of `owner`'s operations run now. */
  runningFor(owner: string): number {
    return this.active.get(owner) ?? 0;
  }

  /** Runs `work` in the account's turn; `refuse` makes the error thrown when too many already wait. */
  async run<T>(owner: string, work: () => Promise<T>, refuse: () => Error): Promise<T> {
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

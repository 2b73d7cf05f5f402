import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { UnresolvedUsageEvent, UsageEvent, UsageMetricsSink, UsageStore } from './types';

export interface UsageRecorderOptions {
  /** Events held in memory at most (waiting plus being written); beyond it new events are dropped. */
  maxBuffered: number;
  /** Events per write transaction; reaching it triggers a write before the timer. */
  batchSize: number;
  flushIntervalMs: number;
  /** Raw events are pruned after this many days; minute rollups after `minuteRollupRetentionDays`. */
  eventRetentionDays: number;
  minuteRollupRetentionDays: number;
}

const MAX_UNRESOLVED = 10_000;
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * The write side of metering. `record` is synchronous and never touches the database: it appends to a
 * bounded buffer. A timer (and a full batch) writes batches in the background; a failed write keeps its
 * events and is retried with backoff, so an outage loses nothing until the buffer is full. Drops are
 * counted and logged, never silent. The backoff is a time before which the timer skips writing (`retryAt`),
 * not a retry loop (p-retry's shape): a retry writes the events queued since, too.
 */
export class UsageRecorder {
  private queue: UsageEvent[] = [];
  private inflight: UsageEvent[] = [];
  private unresolved: UnresolvedUsageEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private soon = false;
  private failures = 0;
  private retryAt = 0;
  private lastPruneAt = 0;
  private pruning: Promise<void> | undefined;
  private droppedSinceLog = 0;
  /** Events of failed writes: they may have been committed anyway, so the retry checks for them. */
  private readonly maybeWritten = new WeakSet<UsageEvent>();

  constructor(
    private readonly store: UsageStore,
    private readonly deps: { clock: Clock; logger: Logger; metrics: UsageMetricsSink },
    private readonly options: UsageRecorderOptions,
  ) {}

  /** Events in memory, waiting or being written. */
  get depth(): number {
    return this.queue.length + this.inflight.length + this.unresolved.length;
  }

  record(event: UsageEvent): void {
    if (this.queue.length + this.inflight.length >= this.options.maxBuffered) {
      this.drop(1, 'buffer_full');
      return;
    }
    this.queue.push(event);
    if (this.queue.length >= this.options.batchSize) this.flushSoon();
  }

  /** A request whose key could not be verified here; the writer attributes it if the key exists (revoked). */
  recordUnresolved(event: UnresolvedUsageEvent): void {
    if (this.unresolved.length >= MAX_UNRESOLVED) {
      this.deps.metrics.unattributed(1);
      this.deps.metrics.dropped(1, 'unresolved_overflow');
      return;
    }
    this.unresolved.push(event);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Writes everything left, retrying for up to `deadlineMs`; what still cannot be written is counted as dropped. */
  async stop(deadlineMs = 5_000): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pruning;
    const until = Date.now() + deadlineMs;
    for (;;) {
      this.retryAt = 0;
      await this.flush();
      if (this.depth === 0) return;
      if (Date.now() >= until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const lost = this.depth;
    this.queue = [];
    this.unresolved = [];
    this.drop(lost, 'shutdown');
    this.deps.logger.error({ lost }, 'usage events could not be written before shutdown');
  }

  /** One write cycle: resolves pending keys, writes batches until the buffer is empty or a write fails. */
  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private flushSoon(): void {
    if (this.soon || this.flushing) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      void this.flush();
    });
  }

  private async writeAll(): Promise<void> {
    if (Date.now() < this.retryAt) return;
    try {
      await this.resolvePending();
      // Only what was queued when the cycle began: chasing the events that arrive during each write turned
      // one write a second into dozens of tiny back-to-back transactions under load (four round trips and a
      // rollup statement each), a tenth of the process's CPU at 500 requests/s. Later events wait for the
      // next tick, or for a full batch.
      let due = this.queue.length;
      while (due > 0) {
        this.inflight = this.queue.splice(0, Math.min(due, this.options.batchSize));
        due -= this.inflight.length;
        await this.store.write(this.inflight, (e) => this.maybeWritten.has(e));
        this.deps.metrics.written(this.inflight.length);
        this.inflight = [];
      }
      if (this.failures > 0) this.deps.logger.info({ after: this.failures }, 'usage writes recovered');
      this.failures = 0;
      this.pruneIfDue();
    } catch (err) {
      // Put the batch back in front: order is kept and nothing is lost while the buffer holds. It may have
      // been committed all the same (the answer to COMMIT lost): the retry checks before writing these again.
      for (const e of this.inflight) this.maybeWritten.add(e);
      this.queue = this.inflight.concat(this.queue);
      this.inflight = [];
      this.failures += 1;
      this.retryAt = Date.now() + Math.min(10_000, 250 * 2 ** Math.min(this.failures, 6));
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.deps.logger.warn(
          { err: (err as Error).message, buffered: this.depth, failures: this.failures },
          'usage write failed; keeping events and retrying',
        );
      }
    }
  }

  private async resolvePending(): Promise<void> {
    if (this.unresolved.length === 0) return;
    const pending = this.unresolved;
    this.unresolved = [];
    let owners: Awaited<ReturnType<UsageStore['resolveKeys']>>;
    try {
      owners = await this.store.resolveKeys(pending.map((e) => e.keyHash));
    } catch (err) {
      this.unresolved = pending.concat(this.unresolved).slice(0, MAX_UNRESOLVED);
      throw err;
    }
    let unattributed = 0;
    for (const { keyHash, ...rest } of pending) {
      const owner = owners.get(keyHash);
      if (owner) this.record({ ...rest, ...owner });
      else unattributed += 1;
    }
    if (unattributed > 0) this.deps.metrics.unattributed(unattributed);
  }

  /** In the background: a long prune (after downtime) must never hold up the writes behind it. */
  private pruneIfDue(): void {
    const now = this.deps.clock.now();
    if (this.pruning || now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    const day = 86_400_000;
    this.pruning = this.store
      .prune({
        events: new Date(now - this.options.eventRetentionDays * day),
        minuteRollups: new Date(now - this.options.minuteRollupRetentionDays * day),
      })
      .then((deleted) => {
        if (deleted > 0) this.deps.logger.info({ deleted }, 'pruned usage events past retention');
      })
      .catch((err: unknown) => {
        this.deps.logger.warn({ err: (err as Error).message }, 'usage pruning failed; will retry next hour');
      })
      .finally(() => {
        this.pruning = undefined;
      });
  }

  private drop(n: number, reason: 'buffer_full' | 'shutdown'): void {
    if (n <= 0) return;
    this.deps.metrics.dropped(n, reason);
    this.droppedSinceLog += n;
    // One line per thousand drops at most: a full buffer must not also flood the log.
    if (reason === 'shutdown' || this.droppedSinceLog === n || this.droppedSinceLog % 1_000 === 0) {
      this.deps.logger.error({ dropped: this.droppedSinceLog, reason }, 'usage events dropped');
    }
  }
}

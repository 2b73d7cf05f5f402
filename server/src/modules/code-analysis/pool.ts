import { ServiceError } from '../../errors';
import { FairQueue } from '../../lib/fair-queue';
import { ThreadCallError, ThreadClient, ThreadLostError } from '../../lib/thread-rpc';
import { startWorkerThread } from '../../lib/worker-thread';
import type { Logger } from '../../logger';
import {
  type AnalysisJob,
  type AnalysisResult,
  isProjectJob,
  type ProjectJob,
  type ProjectResult,
  type WorkerJob,
  type WorkerResult,
} from './types';

export interface AnalysisPoolOptions {
  size: number;
  timeoutMs: number;
  maxQueue: number;
  logger: Logger;
  /** Heap limit of each worker; a worker over it dies and is replaced. */
  maxHeapMb?: number;
  /** The most workers one account's analyses hold at once (default: half the pool, at least one). */
  workersPerAccount?: number;
  /** The most analyses of one account waiting for a worker (default 8); beyond, a 429. */
  queuePerAccount?: number;
}

/** The owner of analyses that name none (tests, the CLI): one account like any other. */
const NO_OWNER = '';

interface Pending {
  owner: string;
  job: WorkerJob;
  timeoutMs: number;
  resolve: (result: WorkerResult) => void;
  reject: (err: unknown) => void;
}

interface Slot {
  thread: ThreadClient<WorkerJob, WorkerResult>;
  /** Set once the worker has loaded its code: the time limit covers the analysis, not the start-up. */
  ready: boolean;
  busy: { id: number; pending: Pending; timer: NodeJS.Timeout | undefined } | undefined;
}

/**
 * A fixed set of worker threads that run analyses off the event loop. Each job has a time limit: a worker that
 * overruns it is terminated and replaced, so no input can stall the server or hold a worker for ever.
 *
 * The workers are shared by every account, so they are shared fairly: one account's analyses hold at most
 * `workersPerAccount` workers at once (half the pool by default: with 2 workers, one), the rest of its analyses
 * wait in its own queue (at most `queuePerAccount`, then 429), and waiting analyses are served one account at a
 * time in turn. An account flooding the pool with slow analyses thus leaves the other half of the workers, and
 * its place in the rotation, to everyone else.
 *
 * Not piscina or tinypool: their only per-task cancellation is an AbortSignal from submission, and they do not
 * say when a queued task reaches a worker, so a limit by signal would count the wait in the queue and a new
 * worker's start-up (loading the grammars), where this one starts when the worker is ready; and their queue
 * hands the next task to a free worker in order, with no way to pass over an account that holds its share of
 * workers while another's analyses wait (lib/fair-queue.ts `take` with a predicate). Heap limits and
 * replacement of a dead worker they would give, and so does this class in a few lines.
 */
export class AnalysisPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Pending>();
  /** Workers held per account. */
  private readonly running = new Map<string, number>();
  private readonly workersPerAccount: number;
  private readonly queuePerAccount: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: AnalysisPoolOptions) {
    this.workersPerAccount = options.workersPerAccount ?? Math.max(1, Math.floor(options.size / 2));
    this.queuePerAccount = options.queuePerAccount ?? 8;
  }

  /**
   * Runs one analysis for `owner` (an account id); `timeoutMs` overrides the pool's limit for this job. A project
   * is one job: its files share one worker and one time limit.
   */
  run(job: AnalysisJob, owner?: string, timeoutMs?: number): Promise<AnalysisResult>;
  run(job: ProjectJob, owner?: string, timeoutMs?: number): Promise<ProjectResult>;
  run(job: WorkerJob, owner = NO_OWNER, timeoutMs = this.options.timeoutMs): Promise<WorkerResult> {
    if (this.closed)
      return Promise.reject(
        new ServiceError('unavailable', 'Code analysis is shutting down.', { code: 'analysis_unavailable' }),
      );
    if (this.queue.waiting(owner) >= this.queuePerAccount) {
      return Promise.reject(
        new ServiceError(
          'rate_limited',
          `Too many analyses at once: this account has ${this.heldBy(owner)} running and ${this.queuePerAccount} waiting, the most one account may queue. Wait for them to finish.`,
          {
            code: 'analysis_concurrency_exceeded',
            retryAfterMs: 1_000,
          },
        ),
      );
    }
    if (this.queue.size >= this.options.maxQueue) {
      return Promise.reject(
        new ServiceError(
          'unavailable',
          `Code analysis is busy: ${this.queue.size} analyses are waiting. Retry shortly.`,
          {
            code: 'analysis_busy',
            retryAfterMs: 1_000,
          },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push(owner, { owner, job, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  private heldBy(owner: string): number {
    return this.running.get(owner) ?? 0;
  }

  private hold(owner: string, delta: number): void {
    const held = this.heldBy(owner) + delta;
    if (held > 0) this.running.set(owner, held);
    else this.running.delete(owner);
  }

  /** Workers currently alive (for tests and metrics). */
  get workerCount(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.drain()) {
      pending.reject(
        new ServiceError('unavailable', 'Code analysis is shutting down.', { code: 'analysis_unavailable' }),
      );
    }
    await Promise.all(this.slots.splice(0).map((slot) => slot.thread.stop()));
  }

  private dispatch(): void {
    while (this.queue.size > 0) {
      const free = this.slots.find((s) => !s.busy);
      if (!free && this.slots.length >= this.options.size) return;
      const next = this.queue.take((owner) => this.heldBy(owner) < this.workersPerAccount);
      if (!next) return;
      const pending = next.item;
      this.hold(pending.owner, 1);
      const slot = free ?? this.spawn();
      const id = this.nextId++;
      slot.busy = { id, pending, timer: undefined };
      if (slot.ready) slot.busy.timer = this.startTimer(slot);
      slot.thread.call(pending.job).then(
        (result) => this.settle(slot, id, () => pending.resolve(result)),
        (err: unknown) => this.settle(slot, id, () => pending.reject(this.failure(err, pending.job))),
      );
    }
  }

  private spawn(): Slot {
    const heap = this.options.maxHeapMb ?? 512;
    const slot: Slot = {
      thread: new ThreadClient({
        name: 'code-analysis-worker',
        start: () =>
          startWorkerThread('code-analysis-worker', {
            execArgv: [],
            resourceLimits: { maxOldGenerationSizeMb: heap, stackSizeMb: 8 },
          }),
        onReady: () => {
          slot.ready = true;
          if (slot.busy) slot.busy.timer = this.startTimer(slot);
        },
        onLost: (reason) => {
          this.options.logger.error({ err: reason }, 'code analysis worker crashed');
          this.retire(slot);
        },
      }),
      ready: false,
      busy: undefined,
    };
    this.slots.push(slot);
    return slot;
  }

  /** A job's answer, unless the slot has moved on (timed out and retired, its job already failed). */
  private settle(slot: Slot, id: number, answer: () => void): void {
    if (!slot.busy || slot.busy.id !== id) return;
    clearTimeout(slot.busy.timer);
    this.hold(slot.busy.pending.owner, -1);
    slot.busy = undefined;
    answer();
    this.dispatch();
  }

  private failure(err: unknown, job: WorkerJob): ServiceError {
    if (err instanceof ThreadCallError && err.failure === 'AnalysisTooComplex')
      return tooComplex(err.message, job);
    if (!(err instanceof ThreadLostError))
      this.options.logger.error({ err: err instanceof Error ? err.message : err }, 'code analysis failed');
    return err instanceof ThreadLostError
      ? new ServiceError('internal', 'The analysis worker stopped unexpectedly on this input.', {
          code: 'analysis_failed',
        })
      : new ServiceError('internal', 'The analysis failed on this input.', { code: 'analysis_failed' });
  }

  private startTimer(slot: Slot): NodeJS.Timeout | undefined {
    const limit = slot.busy?.pending.timeoutMs ?? this.options.timeoutMs;
    return setTimeout(() => this.timeout(slot, limit), limit);
  }

  /**
   * An analysis over its time limit: every accepted file (at most CODE_ANALYSIS_MAX_BYTES) of ordinary code is
   * analysed well within it, so one that is not is the input's doing, the client's 400, not a 500.
   */
  private timeout(slot: Slot, limit: number): void {
    const job = slot.busy?.pending.job;
    const what = job && isProjectJob(job) ? `the project's ${job.files.length} files` : '`code`';
    this.retire(
      slot,
      tooComplex(
        `The analysis of ${what} did not finish within ${limit} ms, the limit per analysis; send a smaller or simpler file, or analyse it in parts.`,
        job,
      ),
    );
    void slot.thread.stop();
  }

  /** Takes a worker out of the pool, fails its job, and lets dispatch start a replacement. */
  private retire(
    slot: Slot,
    error: ServiceError = new ServiceError(
      'internal',
      'The analysis worker stopped unexpectedly on this input.',
      { code: 'analysis_failed' },
    ),
  ): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    if (slot.busy) {
      clearTimeout(slot.busy.timer);
      this.hold(slot.busy.pending.owner, -1);
      slot.busy.pending.reject(error);
      slot.busy = undefined;
    }
    if (!this.closed) this.dispatch();
  }
}

/** An input whose analysis would cost more than its bounds (analyze.ts, the time limit): the client's 400. */
function tooComplex(message: string, job: WorkerJob | undefined): ServiceError {
  return new ServiceError('invalid_request', message, {
    param: job && isProjectJob(job) ? 'files' : 'code',
    code: 'analysis_too_complex',
  });
}

import { Worker } from 'node:worker_threads';
import { ServiceError } from '../../errors';
import type { Logger } from '../../logger';
import type { AnalysisJob, AnalysisResult } from './types';
import type { WorkerReply } from './worker-protocol';

export interface AnalysisPoolOptions {
  size: number;
  timeoutMs: number;
  maxQueue: number;
  logger: Logger;
  /** Heap limit of each worker; a worker over it dies and is replaced. */
  maxHeapMb?: number;
}

interface Pending {
  job: AnalysisJob;
  timeoutMs: number;
  resolve: (result: AnalysisResult) => void;
  reject: (err: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** Set once the worker has loaded its code: the time limit covers the analysis, not the start-up. */
  ready: boolean;
  busy: { id: number; pending: Pending; timer: NodeJS.Timeout | undefined } | undefined;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/**
 * A fixed set of worker threads that run analyses off the event loop. Each job has a time limit: a worker that
 * overruns it is terminated and replaced, so no input can stall the server or hold a worker for ever.
 */
export class AnalysisPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: AnalysisPoolOptions) {}

  /** Runs one analysis; `timeoutMs` overrides the pool's limit for this job. */
  run(job: AnalysisJob, timeoutMs = this.options.timeoutMs): Promise<AnalysisResult> {
    if (this.closed)
      return Promise.reject(
        new ServiceError('unavailable', 'Code analysis is shutting down.', { code: 'analysis_unavailable' }),
      );
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(
        new ServiceError(
          'unavailable',
          `Code analysis is busy: ${this.queue.length} analyses are waiting. Retry shortly.`,
          {
            code: 'analysis_busy',
            headers: { 'retry-after': '1' },
          },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Workers currently alive (for tests and metrics). */
  get workerCount(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) {
      pending.reject(
        new ServiceError('unavailable', 'Code analysis is shutting down.', { code: 'analysis_unavailable' }),
      );
    }
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift() as Pending;
      const id = this.nextId++;
      const current = slot;
      current.busy = { id, pending, timer: undefined };
      if (current.ready) current.busy.timer = this.startTimer(current);
      slot.worker.ref();
      slot.worker.postMessage({ id, job: pending.job });
    }
  }

  private spawn(): Slot {
    const heap = this.options.maxHeapMb ?? 512;
    const worker = new Worker(ENTRY, {
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: heap, stackSizeMb: 8 },
    });
    const slot: Slot = { worker, ready: false, busy: undefined };
    worker.unref();
    worker.on('message', (message: WorkerReply | { ready: true }) => {
      if (!('id' in message)) {
        slot.ready = true;
        if (slot.busy) slot.busy.timer = this.startTimer(slot);
        return;
      }
      if (!slot.busy || slot.busy.id !== message.id) return;
      const { pending, timer } = slot.busy;
      clearTimeout(timer);
      slot.busy = undefined;
      worker.unref();
      if (message.ok) pending.resolve(message.result);
      else {
        this.options.logger.error({ err: message.message }, 'code analysis failed');
        pending.reject(
          new ServiceError('internal', 'The analysis failed on this input.', { code: 'analysis_failed' }),
        );
      }
      this.dispatch();
    });
    worker.on('error', (err) => this.options.logger.error({ err }, 'code analysis worker crashed'));
    worker.on('exit', () =>
      this.retire(slot, 'The analysis worker stopped unexpectedly on this input.', 'analysis_failed'),
    );
    this.slots.push(slot);
    return slot;
  }

  private startTimer(slot: Slot): NodeJS.Timeout | undefined {
    const limit = slot.busy?.pending.timeoutMs ?? this.options.timeoutMs;
    return setTimeout(() => this.timeout(slot, limit), limit);
  }

  private timeout(slot: Slot, limit: number): void {
    this.retire(
      slot,
      `The analysis did not finish within ${limit} ms; send a smaller file or analyse it in parts.`,
      'analysis_timeout',
    );
    void slot.worker.terminate();
  }

  /** Takes a worker out of the pool, fails its job, and lets dispatch start a replacement. */
  private retire(slot: Slot, message: string, code: string): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    if (slot.busy) {
      clearTimeout(slot.busy.timer);
      const kind = code === 'analysis_timeout' ? 'timeout' : 'internal';
      slot.busy.pending.reject(new ServiceError(kind, message, { code }));
      slot.busy = undefined;
    }
    if (!this.closed) this.dispatch();
  }
}

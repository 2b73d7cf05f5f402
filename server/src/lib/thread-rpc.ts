import type { Transferable, Worker } from 'node:worker_threads';

/**
 * Request and reply between the event loop and one of the server's worker threads (tokenizer counting, JSON
 * parsing, usage writing, code analysis): the client side. The thread serves with `serveRequests`
 * (thread-serve.ts). One protocol for all of them: a request carries an id, the reply the same id and either a
 * result or the error the handler threw (its message, name and code), and `{ ready: true }` once the thread has
 * loaded what it needs.
 */
export interface RequestMessage<Q> {
  id: number;
  request: Q;
}
/** What a handler threw, as it crosses to the event loop: Error's message, its class name, its `code` if a string. */
export interface ThreadFailure {
  message: string;
  name: string;
  code?: string;
}
export type ReplyMessage<R> =
  | { id: number; ok: true; result: R }
  | { id: number; ok: false; error: ThreadFailure }
  | { ready: true };

/** The thread's handler threw: `name` is its error's class name (AnalysisTooComplex…), `code` its code. */
export class ThreadCallError extends Error {
  readonly code: string | undefined;
  readonly failure: string;
  constructor({ message, name, code }: ThreadFailure) {
    super(message);
    this.name = 'ThreadCallError';
    this.failure = name;
    this.code = code;
  }
}

/** The thread stopped (crashed, ran out of heap, or was stopped) before it answered. */
export class ThreadLostError extends Error {
  constructor(
    message: string,
    /** Whether it was stopped by `stop()` rather than lost. */
    readonly stopped: boolean,
  ) {
    super(message);
    this.name = 'ThreadLostError';
  }
}

export interface ThreadClientOptions {
  /** What the thread is called in errors (`count-worker`). */
  name: string;
  /** Starts a thread (lib/worker-thread.ts startWorkerThread), each time with fresh options where they need it. */
  start: () => Worker;
  /** The thread has said it is ready (started or restarted). */
  onReady?: () => void;
  /**
   * The thread stopped without `stop()` (its error, or its exit code), before its calls under way are rejected
   * with ThreadLostError; `ready` says whether it had got as far as saying it was ready.
   */
  onLost?: (reason: unknown, ready: boolean) => void;
}

interface Call<R> {
  resolve: (result: R) => void;
  reject: (err: Error) => void;
}

/**
 * One worker thread, started by the first call and again by the first call after it is lost, holding the process
 * open only while a call is under way (ref'd with a call pending, unref'd otherwise). Calls may overlap; each is
 * answered once. The calls pending are bounded by the callers (each of the four bounds its own queue).
 */
export class ThreadClient<Q, R> {
  private worker: Worker | undefined;
  private isReady = false;
  private readonly pending = new Map<number, Call<R>>();
  private nextId = 1;
  private stopping = false;

  constructor(private readonly options: ThreadClientOptions) {}

  call(request: Q, transfer: readonly Transferable[] = []): Promise<R> {
    const worker = this.worker ?? this.start();
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, request } satisfies RequestMessage<Q>, transfer);
    });
  }

  /** Whether a thread is up and has said it is ready. */
  get ready(): boolean {
    return this.isReady;
  }

  /** The running thread, if any (tests that make it fail). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  /** Ends the thread; its pending calls are rejected (ThreadLostError, `stopped`). The next call starts another. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.stopping = true;
    await worker.terminate();
  }

  private start(): Worker {
    const worker = this.options.start();
    this.worker = worker;
    this.stopping = false;
    worker.unref();
    worker.on('message', (reply: ReplyMessage<R>) => {
      if ('ready' in reply) {
        this.isReady = true;
        this.options.onReady?.();
        return;
      }
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) call.resolve(reply.result);
      else call.reject(new ThreadCallError(reply.error));
    });
    // An error ends the thread too ('exit' follows).
    let error: unknown;
    worker.on('error', (err) => {
      error = err;
    });
    worker.on('exit', (code) => this.lost(worker, error ?? new Error(`the thread exited with code ${code}`)));
    return worker;
  }

  private lost(worker: Worker, reason: unknown): void {
    if (this.worker !== worker) return;
    const { stopping, isReady } = this;
    this.worker = undefined;
    this.isReady = false;
    this.stopping = false;
    if (!stopping) {
      // A listener that fails must not leave the calls below unanswered.
      try {
        this.options.onLost?.(reason, isReady);
      } catch {}
    }
    const calls = [...this.pending.values()];
    this.pending.clear();
    const message = stopping
      ? `the ${this.options.name} thread was stopped`
      : `the ${this.options.name} thread stopped: ${reason instanceof Error ? reason.message : String(reason)}`;
    for (const call of calls) call.reject(new ThreadLostError(message, stopping));
  }
}

import type { Worker } from 'node:worker_threads';
import { ThreadCallError, ThreadClient } from '../../lib/thread-rpc';
import { startWorkerThread } from '../../lib/worker-thread';
import type { Logger } from '../../logger';
import type { KeyOwner, UsageEvent, UsageStore } from './types';
import type { WriterOptions, WriterRequest } from './writer-protocol';

/** A failed request to the writer thread, with the database error's code when it had one. */
export class UsageWriterError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'UsageWriterError';
  }
}

/**
 * Usage writes on a thread of their own (writer-worker.ts, PgUsageStore over its own Postgres connections), off
 * the event loop that serves requests. Written on the event loop, each batch's JSON, the driver's messages and
 * its round trips held the loop 2–5 ms twice a second at 1,000 requests/s, and the objects they made, kept
 * across the transaction's round trips, outlived the young generation's scavenges: at 1,000 requests/s they were
 * most of what each scavenge copied and promoted (bench/gateway, `--trace-gc-nvp`), which set how long every
 * scavenge paused the requests in flight. Here the event loop only copies the batch's events to the thread.
 *
 * Postgres only: PGlite lives in the process's own thread and is written there. The thread starts with the first
 * request; if it dies, what was in flight fails (the recorder keeps those events and retries) and the next
 * request starts a new one.
 */
export class ThreadedUsageStore implements UsageStore {
  private readonly client: ThreadClient<WriterRequest, unknown>;
  private closed = false;

  constructor(options: WriterOptions, logger: Logger) {
    this.client = new ThreadClient({
      name: 'usage-writer-worker',
      start: () =>
        startWorkerThread('usage-writer-worker', {
          workerData: options satisfies WriterOptions,
          execArgv: [],
          // Its own limits, not the server's: `pnpm start` gives the process a young generation of 16-64 MB a
          // semi-space, which this thread, making little garbage, does not need.
          resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 },
        }),
      onLost: (reason) => {
        if (!this.closed)
          logger.warn(
            { reason: reason instanceof Error ? reason.message : String(reason) },
            'usage writer thread stopped; the next write starts another',
          );
      },
    });
  }

  async write(events: readonly UsageEvent[], maybeWritten?: (event: UsageEvent) => boolean): Promise<void> {
    const suspects: number[] = [];
    if (maybeWritten) {
      for (const [i, e] of events.entries()) if (maybeWritten(e)) suspects.push(i);
    }
    await this.call({ op: 'write', events: events as UsageEvent[], suspects });
  }

  async resolveKeys(keyHashes: readonly string[]): Promise<Map<string, KeyOwner>> {
    return new Map(
      (await this.call({ op: 'resolveKeys', keyHashes: [...keyHashes] })) as [string, KeyOwner][],
    );
  }

  async prune(before: { events: Date; minuteRollups: Date }): Promise<number> {
    const deleted = await this.call({
      op: 'prune',
      events: before.events.getTime(),
      minuteRollups: before.minuteRollups.getTime(),
    });
    return deleted as number;
  }

  /**
   * Closes the thread's connections (postgres.js lets queries under way finish, up to 5 s), then ends it; called
   * after the recorder's last write. The wait is bounded and holds nothing open once closed.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.client.thread) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.call({ op: 'close' }).catch(() => {}),
        new Promise((r) => {
          timer = setTimeout(r, 6_000);
        }),
      ]);
      clearTimeout(timer);
    }
    this.closed = true;
    await this.client.stop();
  }

  /** The running thread, for tests that make it fail. */
  get thread(): Worker | undefined {
    return this.client.thread;
  }

  /** A failed call as the recorder reads it: the database error's code kept, a lost thread named. */
  private call(request: WriterRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new UsageWriterError('the usage writer thread is closed'));
    return this.client.call(request).catch((err: Error) => {
      throw new UsageWriterError(err.message, err instanceof ThreadCallError ? err.code : undefined);
    });
  }
}

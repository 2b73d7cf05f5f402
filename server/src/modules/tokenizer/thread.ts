import type { Worker } from 'node:worker_threads';
import { ThreadClient, ThreadLostError } from '../../lib/thread-rpc';
import { startWorkerThread } from '../../lib/worker-thread';
import type { CountReply, CountRequest } from './count-worker';
import { countTokensInTurns, type TextsCount } from './turns';

/**
 * Long prompts are counted on a thread of their own, off the event loop: counting 1 MB of prompt takes 100–300
 * ms of CPU (seconds when it is one unbroken run, which BPE merges as one piece), and on the event loop every
 * other request of the process would wait for it.
 *
 * One thread per process, started by the first long prompt and kept (it holds its own copy of the BPE, about
 * 7 MB). Texts sent while it starts wait for it (its messages are queued): counting them on the event loop
 * meanwhile held the loop for seconds on a long unbroken run, since turns.ts can pause only between pieces. Only
 * when no thread can run (it died before it was ready, less than a minute ago) are texts counted on the event
 * loop in turns (turns.ts). The counts are the same either way: both are countTokens. The thread counts the
 * accounts' texts in turns, a span at a time (count-worker.ts), so one account's flood of long prompts does not
 * hold up another's.
 */
class CountingThread {
  private readonly thread = new ThreadClient<CountRequest, CountReply>({
    name: 'count-worker',
    start: () =>
      startWorkerThread('count-worker', {
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
      }),
    onLost: (reason, ready) => {
      if (!ready) this.failedAt = Date.now();
      for (const listener of this.lostListeners) {
        // A listener that fails must not cost the others.
        try {
          listener(reason);
        } catch {}
      }
    },
  });
  private answeredCount = 0;
  /** Told when a thread stops unexpectedly (the chat service logs it), with its error or exit code. */
  private readonly lostListeners = new Set<(reason: unknown) => void>();
  /** When a thread last died before it was ready: no new one for a minute (it would likely fail again). */
  private failedAt = Number.NEGATIVE_INFINITY;

  /** The summed counts of `texts`; once they reach `limit`, counting stops and the sum so far is the answer. */
  count(texts: string[], owner = '', limit = Number.POSITIVE_INFINITY): Promise<TextsCount> {
    if (!this.thread.thread && Date.now() - this.failedAt <= 60_000) return countTokensInTurns(texts, limit);
    const bound = Number.isFinite(limit) ? limit : null;
    return this.thread.call({ texts, owner, limit: bound }).then(
      (count) => {
        this.answeredCount += 1;
        return count;
      },
      // The thread is gone: what it was counting is counted in turns, and the next long prompt starts another.
      (err: unknown) => {
        if (err instanceof ThreadLostError) return countTokensInTurns(texts, limit);
        throw err;
      },
    );
  }

  /**
   * Tells `listener` whenever a thread stops unexpectedly, with its error or exit code; returns what stops
   * telling it. One per chat service: a process (or a test) may hold several.
   */
  onLost(listener: (reason: unknown) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Ends the thread (tests); counting goes on without it. */
  stop(): Promise<void> {
    return this.thread.stop();
  }

  /** How many counts a thread has answered (tests). */
  get answered(): number {
    return this.answeredCount;
  }

  /** Whether the thread is up and counting (tests). */
  get running(): boolean {
    return this.thread.ready;
  }

  /** The running thread, if any (tests that make it fail). */
  get worker(): Worker | undefined {
    return this.thread.thread;
  }
}

export const countingThread = new CountingThread();

/**
 * The summed token counts of texts, counted off the event loop, taking turns with other owners' (accounts'). With
 * a `limit`, counting stops once the sum reaches it (a prompt already past a model's context needs no exact
 * count), and the answer is the sum so far.
 */
export function countTokensAside(texts: string[], owner?: string, limit?: number): Promise<TextsCount> {
  return countingThread.count(texts, owner, limit);
}

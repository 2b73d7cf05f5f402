import { Redis } from 'ioredis';
import type { Clock } from '../../lib/clock';
import { type Bucket, decide, type RateLimitDecision } from './gcra';
import type { RateLimitStore } from './memory-store';
import { GCRA_LUA } from './redis-script';

/** Per bucket: allowed 0|1, backlog µs, retry µs, interval µs. */
type GcraReply = number[];

interface GcraCommand {
  /** numkeys, the bucket keys, now (µs or -1), the limits. */
  tesseraGcra(...args: (string | number)[]): Promise<GcraReply>;
}

export interface RedisStoreOptions {
  url: string;
  /** A command slower than this fails, and the limiter falls back to the in-process store. */
  commandTimeoutMs: number;
  /** Time source for tests; without it the script reads Redis's own clock. */
  clock?: Clock;
  keyPrefix?: string;
}

/**
 * GCRA states in Redis, shared by every instance. Built to fail fast rather than queue: no offline queue,
 * no per-command retries, a short command timeout; ioredis reconnects in the background.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly client: Redis & GcraCommand;
  private readonly clock: Clock | undefined;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  /** Called on each failure of the connection itself (not of a command). */
  onConnectionError: (() => void) | undefined;

  constructor(options: RedisStoreOptions) {
    this.timeoutMs = options.commandTimeoutMs;
    this.client = new Redis(options.url, {
      // A backstop only: `consume` applies the real timeout, which tolerates event-loop lag.
      commandTimeout: options.commandTimeoutMs * 10,
      connectTimeout: Math.max(1_000, options.commandTimeoutMs),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
      lazyConnect: true,
    }) as Redis & GcraCommand;
    // ioredis sends EVALSHA and falls back to EVAL only when the script is not cached yet.
    this.client.defineCommand('tesseraGcra', { lua: GCRA_LUA });
    // Without a listener ioredis would print each error. A connection that fails (refused, reset, timed out)
    // is counted: while it is down the limiter sends no command, so commands alone would show no error.
    this.client.on('error', () => this.onConnectionError?.());
    this.clock = options.clock;
    this.prefix = options.keyPrefix ?? 'tessera:rl:';
  }

  connect(): void {
    this.client.connect().catch(() => {});
  }

  /** Whether commands can be sent now (connected); when not, the limiter does not even try. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    const [decision] = await this.consumeAll([{ key, limit }]);
    if (!decision) throw new Error('no decision');
    return decision;
  }

  async consumeAll(buckets: readonly Bucket[]): Promise<RateLimitDecision[]> {
    const nowUs = this.clock ? Math.round(this.clock.now() * 1000) : -1;
    const reply = await this.withTimeout(
      this.client.tesseraGcra(
        buckets.length,
        ...buckets.map((b) => this.prefix + b.key),
        nowUs,
        ...buckets.map((b) => b.limit),
        // Costs only when one is not 1: the keys' own requests keep their arguments.
        ...(buckets.some((b) => b.cost !== undefined && b.cost !== 1) ? buckets.map((b) => b.cost ?? 1) : []),
      ),
    );
    return buckets.map((b, i) => {
      const [allowed, backlogUs, retryUs, interval] = reply.slice(4 * i, 4 * i + 4);
      return decide(allowed === 1, b.limit, backlogUs ?? 0, retryUs ?? 0, interval ?? 1);
    });
  }

  /** Resolves when Redis answers a PING within the command timeout: a connection can be open and Redis hung. */
  async ping(): Promise<void> {
    await this.withTimeout(this.client.ping());
  }

  /**
   * Rejects when no reply came within the timeout. When the timer fires, the check waits one
   * setImmediate: the event loop polls sockets in between, so a reply that arrived while this process was
   * busy (event-loop lag, not a slow Redis) is still taken instead of being counted as a failure.
   */
  private withTimeout<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => setImmediate(() => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`))),
        this.timeoutMs,
      );
    });
    return Promise.race([command, expired]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../lib/clock';

/** The largest answer kept (its JSON text, in characters): a larger one is answered, never stored. */
export const MAX_ENTRY_CHARS = 4 * 1024 * 1024;

/** Where cached answers live: JSON texts under their keys, each with its own time to live. */
export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  /** Whether reads and writes can be served now (Redis: connected). */
  ready(): boolean;
  /** The entry's text, or undefined (absent, expired, or the store could not be read: a miss either way). */
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * In process, when Redis is not configured: at most `maxEntries` answers and `maxChars` characters of JSON (with
 * their keys), the least recently read dropped first; each entry expires by the injected clock.
 */
export class MemoryCacheStore implements CacheStore {
  readonly kind = 'memory';
  private readonly lru: LRUCache<string, string>;

  constructor(options: { maxEntries: number; maxChars: number; clock: Clock }) {
    this.lru = new LRUCache<string, string>({
      max: options.maxEntries,
      maxSize: options.maxChars,
      maxEntrySize: Math.min(options.maxChars, MAX_ENTRY_CHARS),
      sizeCalculation: (value, key) => value.length + key.length,
      perf: options.clock,
      // Read at each check: a test's clock moved by hand is seen at once.
      ttlResolution: 0,
    });
  }

  ready(): boolean {
    return true;
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.lru.get(key));
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    this.lru.set(key, value, { ttl: ttlMs });
    return Promise.resolve();
  }

  /** Entries held (expired ones included until they are read or evicted). */
  get size(): number {
    return this.lru.size;
  }

  close(): Promise<void> {
    this.lru.clear();
    return Promise.resolve();
  }
}

/**
 * In Redis, shared by every instance, on a connection of its own (an answer of megabytes must not hold up the
 * rate limiter's commands). Redis expires the keys (`SET … PX`). Built to fail fast: no offline queue, no
 * retries, a command timeout; a failure is a miss (or an answer not stored), never an error to the client.
 */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis';
  private readonly client: Redis;

  constructor(options: {
    url: string;
    commandTimeoutMs: number;
    prefix: string;
    onError: (err: unknown) => void;
  }) {
    this.client = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1_000, options.commandTimeoutMs),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
      keyPrefix: options.prefix,
      lazyConnect: true,
    });
    this.client.on('error', options.onError);
    this.onError = options.onError;
  }

  private readonly onError: (err: unknown) => void;

  connect(): void {
    this.client.connect().catch(() => {});
  }

  ready(): boolean {
    return this.client.status === 'ready';
  }

  async get(key: string): Promise<string | undefined> {
    if (this.client.status !== 'ready') return undefined;
    try {
      return (await this.client.get(key)) ?? undefined;
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.client.status !== 'ready' || value.length > MAX_ENTRY_CHARS) return;
    try {
      await this.client.set(key, value, 'PX', ttlMs);
    } catch (err) {
      this.onError(err);
    }
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

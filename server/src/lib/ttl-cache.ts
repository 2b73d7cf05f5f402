import { LRUCache } from 'lru-cache';
import type { Clock } from './clock';

/**
 * The server's one in-process cache (lru-cache): at most `max` entries, the least recently read evicted first,
 * each aged by the injected clock so that tests can move it. An entry past its TTL stays until it is evicted or
 * replaced: `fresh` does not see it, `stale` does, for callers that would rather serve an old entry than none
 * (the database down, a refresh on its way).
 *
 * lru-cache allocates its index arrays for `max` entries up front (about 3.7 MB of RSS for 100,000 with a
 * TTL), not as entries arrive; a read allocates nothing (the options object it writes its outcome into is this
 * cache's own).
 */
export class TtlCache<K extends {}, V extends {}> {
  private readonly lru: LRUCache<K, V>;
  private readonly read: { status: LRUCache.Status<K, V> } = { status: {} };

  constructor({ max, ttlMs, clock }: { max: number; ttlMs: number; clock: Clock }) {
    this.lru = new LRUCache<K, V>({
      max,
      ttl: ttlMs,
      perf: clock,
      // The clock is read at each check: a resolution would keep a time behind a timer, which a test's clock
      // moving by hand does not go through.
      ttlResolution: 0,
      allowStale: true,
      noDeleteOnStaleGet: true,
    });
  }

  /** The entry if it is younger than the TTL. */
  fresh(key: K): V | undefined {
    const value = this.lru.get(key, this.read);
    return this.read.status.get === 'hit' ? value : undefined;
  }

  /** The entry whatever its age. */
  stale(key: K): V | undefined {
    return this.lru.get(key, this.read);
  }

  set(key: K, value: V): void {
    this.lru.set(key, value);
  }

  delete(key: K): void {
    this.lru.delete(key);
  }

  /** Every entry, whatever its age. */
  values(): Generator<V> {
    return this.lru.values();
  }

  get size(): number {
    return this.lru.size;
  }
}

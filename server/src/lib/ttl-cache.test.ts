import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

function cacheAt(start: number, max = 3) {
  const clock = { t: start, now: () => clock.t };
  return { clock, cache: new TtlCache<string, { n: number }>({ max, ttlMs: 1_000, clock }) };
}

describe('TtlCache', () => {
  it('ages entries by the injected clock: fresh up to the TTL, then only stale, and kept', () => {
    const { clock, cache } = cacheAt(Date.UTC(2026, 10, 26));
    cache.set('a', { n: 1 });
    clock.t += 1_000;
    expect(cache.fresh('a')).toEqual({ n: 1 });
    clock.t += 1;
    expect(cache.fresh('a')).toBeUndefined();
    expect(cache.stale('a')).toEqual({ n: 1 });
    expect(cache.stale('a')).toEqual({ n: 1 });
    cache.set('a', { n: 2 });
    expect(cache.fresh('a')).toEqual({ n: 2 });
  });

  it('holds at most max entries, evicting the least recently read', () => {
    const { cache } = cacheAt(Date.UTC(2026, 10, 26));
    for (const k of ['a', 'b', 'c']) cache.set(k, { n: 0 });
    cache.fresh('a');
    cache.set('d', { n: 0 });
    expect(cache.size).toBe(3);
    expect(cache.stale('b')).toBeUndefined();
    expect([...cache.values()]).toHaveLength(3);
    cache.delete('a');
    expect(cache.stale('a')).toBeUndefined();
  });
});

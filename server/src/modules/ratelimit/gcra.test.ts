import { describe, expect, it } from 'vitest';
import { formatDuration } from './duration';
import { type GcraState, gcraStep, gcraSteps } from './gcra';
import { MemoryRateLimitStore } from './memory-store';

/** A store on a clock the test moves by hand. */
function setup(startMs = 1_763_800_000_000) {
  let now = startMs;
  const store = new MemoryRateLimitStore({ now: () => now });
  return {
    store,
    advance(ms: number) {
      now += ms;
    },
    burst(key: string, limit: number, n: number) {
      let admitted = 0;
      for (let i = 0; i < n; i++) if (store.consumeNow(key, limit).allowed) admitted++;
      return admitted;
    },
  };
}

describe('GCRA, in process, injected clock', () => {
  it('admits exactly the limit in a burst: Free 150 at once → 100 admitted, 50 refused', () => {
    const { burst } = setup();
    expect(burst('a', 100, 150)).toBe(100);
  });

  it('exact at the limit for limits whose interval is not a whole number of ms', () => {
    for (const limit of [1, 7, 13, 99, 100, 101, 333, 1000, 7777]) {
      const { burst } = setup();
      expect(burst(`k${limit}`, limit, limit)).toBe(limit);
      expect(burst(`k${limit}`, limit, 5)).toBe(0);
    }
  });

  it('counts remaining down to 0 and reports the time until the bucket is full again', () => {
    const { store } = setup();
    const first = store.consumeNow('a', 100);
    expect(first).toEqual({ allowed: true, limit: 100, remaining: 99, resetMs: 600, retryAfterMs: 0 });
    for (let i = 2; i < 100; i++) store.consumeNow('a', 100);
    const last = store.consumeNow('a', 100);
    expect(last).toMatchObject({ allowed: true, remaining: 0, resetMs: 60_000 });
    const refused = store.consumeNow('a', 100);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: 60_000, retryAfterMs: 600 });
  });

  it('refills smoothly: one request per limit/60 s, not a whole window at once', () => {
    const { store, advance, burst } = setup();
    expect(burst('a', 100, 100)).toBe(100);
    advance(599);
    expect(store.consumeNow('a', 100)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(store.consumeNow('a', 100).allowed).toBe(true);
    expect(store.consumeNow('a', 100).allowed).toBe(false);
    advance(6_000);
    expect(burst('a', 100, 20)).toBe(10);
  });

  it('no 2x at a window edge: over any 60 s at most limit + refill', () => {
    const { advance, burst } = setup();
    expect(burst('a', 100, 100)).toBe(100);
    advance(59_999);
    // A fixed window would now admit 100 more; GCRA admits what refilled: 99 (one more at 60 s).
    expect(burst('a', 100, 200)).toBe(99);
    advance(1);
    expect(burst('a', 100, 200)).toBe(1);
  });

  it('a full minute of rest restores the whole burst, and no more', () => {
    const { advance, burst } = setup();
    expect(burst('a', 100, 100)).toBe(100);
    advance(10 * 60_000);
    expect(burst('a', 100, 150)).toBe(100);
  });

  it('steady sending at the limit rate is never refused', () => {
    const { advance, burst } = setup();
    let admitted = 0;
    for (let i = 0; i < 500; i++) {
      admitted += burst('a', 100, 1);
      advance(600);
    }
    expect(admitted).toBe(500);
  });

  it('keys are independent (account × mode)', () => {
    const { burst } = setup();
    expect(burst('acct:live', 100, 150)).toBe(100);
    expect(burst('acct:test', 100, 150)).toBe(100);
    expect(burst('other:live', 100, 150)).toBe(100);
  });

  it('a limit change keeps the count in the bucket: Free exhausted → Pro has 900 left at once', () => {
    const { store, burst } = setup();
    expect(burst('a', 100, 100)).toBe(100);
    expect(store.consumeNow('a', 1000)).toMatchObject({ allowed: true, limit: 1000, remaining: 899 });
    expect(burst('a', 1000, 2000)).toBe(899);
  });

  it('a downgrade caps the backlog at the new limit: at most a minute to recover', () => {
    const { advance, burst } = setup();
    expect(burst('a', 1000, 1000)).toBe(1000);
    expect(burst('a', 100, 10)).toBe(0);
    advance(60_000);
    expect(burst('a', 100, 150)).toBe(100);
  });

  it('forgets full buckets so memory does not grow with idle accounts', () => {
    const { store, advance } = setup();
    for (let i = 0; i < 50; i++) store.consumeNow(`acct${i}`, 100);
    advance(11_000);
    store.consumeNow('fresh', 100);
    expect(store.size).toBe(1);
  });
});

describe('formatDuration (reset headers)', () => {
  it.each([
    [0, '0s'],
    [0.2, '1ms'],
    [600, '600ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [59_400, '59.4s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [3_723_000, '1h2m3s'],
    [90_061_001, '25h1m1.001s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('gcraSteps (account and key buckets together)', () => {
  it('admits only while both admit, and a refusal by one spends nothing of the other', () => {
    const now = 1_000_000_000;
    let states: (GcraState | undefined)[] = [undefined, undefined];
    let admitted = 0;
    for (let i = 0; i < 10; i++) {
      const { decisions, next } = gcraSteps(states, now, [100, 3]);
      if (decisions.every((d) => d.allowed)) admitted++;
      states = next.map((n, j) => n ?? states[j]);
    }
    expect(admitted).toBe(3);
    // The account's bucket counted only the 3 admitted requests: 97 left.
    expect(gcraStep(states[0], now, 100).decision.remaining).toBe(96);
  });
});

describe('a cost of several units (a deployment tokens per minute, modules/routing/limits.ts)', () => {
  it('takes cost units, refuses what would overflow, gives units back, and caps a cost above the limit', () => {
    const now = 1_000_000_000;
    const take = (state: GcraState | undefined, cost: number, at = now) => gcraStep(state, at, 100, cost);
    const first = take(undefined, 60);
    expect(first.decision).toMatchObject({ allowed: true, remaining: 40 });
    // 60 + 50 > 100: refused, nothing spent.
    const refused = take(first.next, 50);
    expect(refused.decision.allowed).toBe(false);
    expect(refused.next).toBeUndefined();
    // 10 units come back at 100 a minute: 6 s.
    expect(refused.decision.retryAfterMs).toBe(6_000);
    // Given back: 45 of the 60 were not used.
    const back = take(first.next, -45);
    expect(back.decision).toMatchObject({ allowed: true, remaining: 85 });
    // Never below an empty bucket.
    expect(take(back.next, -1_000).decision.remaining).toBe(100);
    // A call larger than the whole limit goes once the bucket is whole, taking all of it.
    const large = take(undefined, 250);
    expect(large.decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(take(back.next, 250).decision.allowed).toBe(false);
  });
});

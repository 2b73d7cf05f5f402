import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/lib/ids';
import { MemoryRateLimitStore, RedisRateLimitStore } from '../../src/modules/ratelimit';

const REDIS_URL = process.env.TEST_REDIS_URL;

/** The Lua script against the real Redis (CI sets TEST_REDIS_URL); skipped without one. */
describe.skipIf(!REDIS_URL)('GCRA in Redis (Lua)', () => {
  let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
  const clock = { now: () => nowMs };
  let store: RedisRateLimitStore;
  let realTime: RedisRateLimitStore;
  const prefix = `tessera:test:${randomBase62(8)}:`;

  beforeAll(async () => {
    const url = REDIS_URL ?? '';
    store = new RedisRateLimitStore({ url, commandTimeoutMs: 2_000, clock, keyPrefix: prefix });
    realTime = new RedisRateLimitStore({ url, commandTimeoutMs: 2_000, keyPrefix: prefix });
    store.connect();
    realTime.connect();
    for (let i = 0; i < 100 && !(store.ready && realTime.ready); i++)
      await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => {
    const keys = await store.client.keys(`${prefix}*`);
    if (keys.length > 0) await store.client.del(...keys);
    await store.close();
    await realTime.close();
  });

  async function burst(s: RedisRateLimitStore, key: string, limit: number, n: number): Promise<number> {
    const decisions = await Promise.all(Array.from({ length: n }, () => s.consume(key, limit)));
    return decisions.filter((d) => d.allowed).length;
  }

  it('admits exactly the limit in a concurrent burst, then refills one per interval', async () => {
    expect(await burst(store, 'a', 100, 150)).toBe(100);
    expect(await store.consume('a', 100)).toEqual({
      allowed: false,
      limit: 100,
      remaining: 0,
      resetMs: 60_000,
      retryAfterMs: 600,
    });
    nowMs += 600;
    expect(await burst(store, 'a', 100, 3)).toBe(1);
  });

  it('makes the same decisions as the in-process store, step for step (Lua and TypeScript agree)', async () => {
    const steps = fc.array(
      fc.record({
        advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 })),
        limit: fc.constantFrom(1, 3, 7, 100, 1000),
        n: fc.integer({ min: 1, max: 12 }),
      }),
      { minLength: 1, maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (ops) => {
        const key = `parity:${randomBase62(10)}`;
        const memory = new MemoryRateLimitStore(clock);
        for (const op of ops) {
          nowMs += op.advanceMs;
          for (let i = 0; i < op.n; i++) {
            expect(await store.consume(key, op.limit)).toEqual(memory.consumeNow(key, op.limit));
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('two buckets at once (account and key): the same decisions as in process, counted in both or neither', async () => {
    const steps = fc.array(
      fc.record({
        advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 })),
        accountLimit: fc.constantFrom(3, 10, 100),
        keyLimit: fc.constantFrom(1, 2, 5, 50),
        n: fc.integer({ min: 1, max: 12 }),
      }),
      { minLength: 1, maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (ops) => {
        const id = randomBase62(10);
        const memory = new MemoryRateLimitStore(clock);
        for (const op of ops) {
          nowMs += op.advanceMs;
          const buckets = [
            { key: `pair:${id}:account`, limit: op.accountLimit },
            { key: `pair:${id}:key`, limit: op.keyLimit },
          ];
          for (let i = 0; i < op.n; i++)
            expect(await store.consumeAll(buckets)).toEqual(memory.consumeAllNow(buckets));
        }
      }),
      { numRuns: 25 },
    );
  });

  it("on Redis's own clock: a burst of 150 at Free gets 100, plus at most what refilled meanwhile", async () => {
    const started = performance.now();
    const admitted = await burst(realTime, `rt:${randomBase62(8)}`, 100, 150);
    const elapsed = performance.now() - started;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(100 + Math.floor(elapsed / 600) + 1);
  });

  it('a reply that arrived while this process was busy is not taken for a timeout', async () => {
    const impatient = new RedisRateLimitStore({
      url: REDIS_URL ?? '',
      commandTimeoutMs: 20,
      keyPrefix: prefix,
    });
    impatient.connect();
    for (let i = 0; i < 100 && !impatient.ready; i++) await new Promise((r) => setTimeout(r, 20));
    const pending = impatient.consume(`lag:${randomBase62(8)}`, 100);
    const busyUntil = performance.now() + 150;
    while (performance.now() < busyUntil) {
      // Event-loop lag: the reply waits in the socket while the timer expires.
    }
    await expect(pending).resolves.toMatchObject({ allowed: true, remaining: 99 });
    await impatient.close();
  });

  it('lets a bucket expire once it is full again (no key left behind)', async () => {
    const key = `exp:${randomBase62(8)}`;
    await realTime.consume(key, 60_000);
    const ttl = await realTime.client.pttl(`${prefix}${key}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_001);
  });
});

import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logger';
import type { Principal } from '../keys';
import { RateLimiter } from './limiter';
import { MemoryRateLimitStore } from './memory-store';
import { RedisRateLimitStore } from './redis-store';

const principal = (mode: 'live' | 'test'): Principal => ({
  keyId: 'key_1',
  accountId: 'acc_1',
  mode,
  last4: 'abcd',
  plan: 'free',
  limits: { requestsPerMinute: 100, monthlyTokens: 1 },
});

describe('RateLimiter', () => {
  it('without Redis: in process, per account and mode', async () => {
    const limiter = new RateLimiter({
      memory: new MemoryRateLimitStore({ now: () => 0 }),
      logger: createLogger('silent'),
    });
    let live = 0;
    for (let i = 0; i < 150; i++) if ((await limiter.check(principal('live'))).allowed) live++;
    expect(live).toBe(100);
    expect((await limiter.check(principal('test'))).allowed).toBe(true);
    expect(limiter.mode).toBe('memory');
  });

  it('with Redis unreachable: decides in process at once, counts it, never throws', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused.
    const redis = new RedisRateLimitStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 50 });
    const limiter = new RateLimiter({
      memory: new MemoryRateLimitStore({ now: () => 0 }),
      redis,
      logger: createLogger('silent'),
    });
    limiter.start();
    const started = performance.now();
    let admitted = 0;
    for (let i = 0; i < 120; i++) if ((await limiter.check(principal('live'))).allowed) admitted++;
    expect(admitted).toBe(100);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(limiter.mode).toBe('fallback');
    expect(limiter.metrics.fallbackDecisions).toBe(120);
    await limiter.stop();
  });
});

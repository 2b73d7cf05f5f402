import type { Logger } from '../../logger';
import type { Principal } from '../keys';
import type { RateLimitDecision } from './gcra';
import type { MemoryRateLimitStore } from './memory-store';
import type { RedisRateLimitStore } from './redis-store';

/** Counters for /metrics: how often Redis failed and how many decisions were taken without it. */
export interface RateLimitMetrics {
  /** Commands that failed or timed out, and failures of the connection (refused, reset, lost). */
  redisErrors: number;
  fallbackDecisions: number;
}

/**
 * Request limits per account and mode (live and test apart): `limits.requestsPerMinute` with a burst of
 * the same size (see gcra.ts). With Redis the limit is shared by every instance; while Redis is
 * unreachable each instance limits on its own (never a 5xx), and goes back to Redis once it is ready.
 */
export class RateLimiter {
  readonly metrics: RateLimitMetrics = { redisErrors: 0, fallbackDecisions: 0 };
  private degraded = false;
  /** After a failed call, Redis is not tried again before this (monotonic ms): a hung Redis costs one timeout a second, not one a request. */
  private retryRedisAt = 0;

  constructor(
    private readonly deps: {
      memory: MemoryRateLimitStore;
      redis?: RedisRateLimitStore | undefined;
      logger: Logger;
    },
  ) {
    if (deps.redis)
      deps.redis.onConnectionError = () => {
        this.metrics.redisErrors++;
      };
  }

  /** `memory` without Redis, `redis` when shared, `fallback` while Redis is unreachable. */
  get mode(): 'memory' | 'redis' | 'fallback' {
    if (!this.deps.redis) return 'memory';
    return this.degraded || !this.deps.redis.ready ? 'fallback' : 'redis';
  }

  async check(principal: Principal): Promise<RateLimitDecision> {
    const key = `${principal.accountId}:${principal.mode}`;
    const limit = principal.limits.requestsPerMinute;
    const redis = this.deps.redis;
    if (!redis) return this.deps.memory.consumeNow(key, limit);
    if (redis.ready && performance.now() >= this.retryRedisAt) {
      try {
        const decision = await redis.consume(key, limit);
        if (this.degraded) {
          this.degraded = false;
          this.deps.logger.info('rate limiter: Redis reachable again; limits are shared again');
        }
        return decision;
      } catch (err) {
        this.metrics.redisErrors++;
        this.retryRedisAt = performance.now() + 1_000;
        this.degrade((err as Error).message);
      }
    } else {
      this.degrade(redis.ready ? 'recent failure' : `connection ${redis.client.status}`);
    }
    this.metrics.fallbackDecisions++;
    return this.deps.memory.consumeNow(key, limit);
  }

  start(): void {
    this.deps.redis?.connect();
  }

  async stop(): Promise<void> {
    await this.deps.redis?.close();
  }

  /** Logs once per outage, not once per request. */
  private degrade(reason: string): void {
    if (this.degraded) return;
    this.degraded = true;
    this.deps.logger.warn(
      { reason },
      'rate limiter: Redis unreachable; limiting in process (per instance) until it returns',
    );
  }
}

import type { Logger } from '../../logger';
import type { Principal } from '../keys';
import type { Bucket, RateLimitDecision } from './gcra';
import type { MemoryRateLimitStore } from './memory-store';
import type { RedisRateLimitStore } from './redis-store';

/** Counters for /metrics: how often Redis failed and how many decisions were taken without it. */
export interface RateLimitMetrics {
  /** Commands that failed or timed out, and failures of the connection (refused, reset, lost). */
  redisErrors: number;
  fallbackDecisions: number;
}

/** A decision, and which limit it reports: the account's plan, or the key's own. */
export interface LimitDecision extends RateLimitDecision {
  by: 'plan' | 'key';
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

  /**
   * Counts one request against the account's bucket and, for a key with a limit of its own, the key's bucket
   * too, in one atomic step: admitted only when both admit it (so neither limit is spent by a refused call).
   * Without Redis the decision is taken at once and returned as it is, not as a promise: on the request path a
   * promise (and the caller's await of it) is garbage a call for nothing to wait for.
   */
  check(principal: Principal): LimitDecision | Promise<LimitDecision> {
    const account: Bucket = {
      key: `${principal.accountId}:${principal.mode}`,
      limit: principal.limits.requestsPerMinute,
    };
    const access = principal.access;
    const keyLimit = access?.requestsPerMinute;
    const buckets = keyLimit
      ? [account, { key: `key:${access?.rateBucketKeyId ?? principal.keyId}`, limit: keyLimit }]
      : [account];
    if (!this.deps.redis) return reported(this.consumeInProcess(buckets));
    return this.decide(buckets).then(reported);
  }

  /**
   * Takes `cost` units of each bucket at once (admitted only when every bucket has room, and then counted in
   * each), with the keys' own Redis script and its fallback: a deployment's own requests and tokens per minute
   * (modules/routing/limits.ts), shared by every instance on Redis. A negative cost gives units back.
   */
  consume(buckets: Bucket[]): Promise<RateLimitDecision[]> {
    return this.decide(buckets);
  }

  private async decide(buckets: Bucket[]): Promise<RateLimitDecision[]> {
    const redis = this.deps.redis;
    if (!redis) return this.consumeInProcess(buckets);
    if (redis.ready && performance.now() >= this.retryRedisAt) {
      try {
        const decision = await redis.consumeAll(buckets);
        this.recover();
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
    return this.consumeInProcess(buckets);
  }

  private consumeInProcess(buckets: Bucket[]): RateLimitDecision[] {
    const [only] = buckets;
    // The common case (no key limit) keeps the single-bucket path.
    if (only && buckets.length === 1) return [this.deps.memory.consumeNow(only.key, only.limit, only.cost)];
    return this.deps.memory.consumeAllNow(buckets);
  }

  start(): void {
    this.deps.redis?.connect();
  }

  async stop(): Promise<void> {
    await this.deps.redis?.close();
  }

  /**
   * Redis's state for /readyz, asked of Redis itself: `mode` changes only when a request tries Redis, so an idle
   * instance went on reporting an outage that was over, and a connection that is open to a hung Redis looked
   * fine. The PING is bounded by the command timeout, so the probe never hangs. Its answer counts as a
   * command's would: an answer puts the limiter back on Redis at once, a failure marks it degraded.
   */
  async probeRedis(): Promise<'not configured' | 'ok' | 'unreachable'> {
    const redis = this.deps.redis;
    if (!redis) return 'not configured';
    if (!redis.ready) return 'unreachable';
    try {
      await redis.ping();
    } catch (err) {
      this.metrics.redisErrors++;
      this.retryRedisAt = performance.now() + 1_000;
      this.degrade((err as Error).message);
      return 'unreachable';
    }
    this.retryRedisAt = 0;
    this.recover();
    return 'ok';
  }

  private recover(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.deps.logger.info('rate limiter: Redis reachable again; limits are shared again');
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

/**
 * The decision to report for [account, key?]: a refusal names the bucket that refused (the one to wait longer
 * for, the plan's on a tie); an admission shows the bucket with fewer requests left (headers then show the
 * limit that binds first).
 */
function reported(decisions: RateLimitDecision[]): LimitDecision {
  const [plan, key] = decisions;
  if (!plan) throw new Error('no decision');
  if (!key) return { ...plan, by: 'plan' };
  if (!plan.allowed || !key.allowed) {
    const keyFirst = !key.allowed && (plan.allowed || key.retryAfterMs > plan.retryAfterMs);
    return keyFirst ? { ...key, allowed: false, by: 'key' } : { ...plan, allowed: false, by: 'plan' };
  }
  return key.remaining < plan.remaining ? { ...key, by: 'key' } : { ...plan, by: 'plan' };
}

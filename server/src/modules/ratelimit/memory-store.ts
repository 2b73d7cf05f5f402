import type { Clock } from '../../lib/clock';
import { type Bucket, type GcraState, gcraStep, gcraSteps, type RateLimitDecision } from './gcra';

/** Where GCRA states live: this process (`MemoryRateLimitStore`) or Redis (`RedisRateLimitStore`). */
export interface RateLimitStore {
  consume(key: string, limit: number): Promise<RateLimitDecision>;
  /** One request counted in every bucket, or in none (see gcraSteps); a decision per bucket. */
  consumeAll(buckets: readonly Bucket[]): Promise<RateLimitDecision[]>;
}

/**
 * The in-process store: the default without REDIS_URL and the fallback while Redis is unreachable.
 * Exact for one instance; N instances each enforce the limit on their own.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly states = new Map<string, GcraState>();
  private lastSweepUs = 0;

  constructor(private readonly clock: Clock) {}

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    return this.consumeNow(key, limit);
  }

  /** Synchronous form, for callers (and benchmarks) that need no promise. */
  consumeNow(key: string, limit: number, cost = 1): RateLimitDecision {
    const nowUs = Math.round(this.clock.now() * 1000);
    const { decision, next } = gcraStep(this.states.get(key), nowUs, limit, cost);
    if (next) this.states.set(key, next);
    this.sweep(nowUs);
    return decision;
  }

  async consumeAll(buckets: readonly Bucket[]): Promise<RateLimitDecision[]> {
    return this.consumeAllNow(buckets);
  }

  consumeAllNow(buckets: readonly Bucket[]): RateLimitDecision[] {
    const nowUs = Math.round(this.clock.now() * 1000);
    const { decisions, next } = gcraSteps(
      buckets.map((b) => this.states.get(b.key)),
      nowUs,
      buckets.map((b) => b.limit),
      buckets.map((b) => b.cost ?? 1),
    );
    buckets.forEach((b, i) => {
      const state = next[i];
      if (state) this.states.set(b.key, state);
    });
    this.sweep(nowUs);
    return decisions;
  }

  get size(): number {
    return this.states.size;
  }

  /** A state whose tat has passed is a full bucket, the same as no state: drop it (at most every 10 s). */
  private sweep(nowUs: number): void {
    if (nowUs - this.lastSweepUs < 10_000_000) return;
    this.lastSweepUs = nowUs;
    for (const [key, state] of this.states) {
      if (state.tat <= nowUs) this.states.delete(key);
    }
  }
}

import type { Clock } from '../../lib/clock';
import { type GcraState, gcraStep, type RateLimitDecision } from './gcra';

/** Where GCRA states live: this process (`MemoryRateLimitStore`) or Redis (`RedisRateLimitStore`). */
export interface RateLimitStore {
  consume(key: string, limit: number): Promise<RateLimitDecision>;
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
  consumeNow(key: string, limit: number): RateLimitDecision {
    const nowUs = Math.round(this.clock.now() * 1000);
    const { decision, next } = gcraStep(this.states.get(key), nowUs, limit);
    if (next) this.states.set(key, next);
    this.sweep(nowUs);
    return decision;
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

import type { Clock } from '../../lib/clock';

/**
 * Sliding-log throttle for sign-in attempts, per email and per client address. It lives in process:
 * a determined attacker spread over N instances gets N times the budget, which still caps guessing
 * at a few hundred tries an hour against scrypt hashes.
 */
export class AttemptThrottle {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until another attempt is allowed for `key`, or 0 when it is allowed now. */
  retryAfterMs(key: string): number {
    const now = this.clock.now();
    const recent = this.prune(key, now);
    if (recent.length < this.limit) return 0;
    const oldest = recent[recent.length - this.limit] ?? now;
    return Math.max(1, oldest + this.windowMs - now);
  }

  record(key: string): void {
    const now = this.clock.now();
    const recent = this.prune(key, now);
    recent.push(now);
    this.attempts.set(key, recent);
    if (this.attempts.size > 100_000) this.sweep(now);
  }

  reset(key: string): void {
    this.attempts.delete(key);
  }

  private prune(key: string, now: number): number[] {
    const list = this.attempts.get(key) ?? [];
    const kept = list.filter((t) => now - t < this.windowMs);
    if (kept.length === 0) this.attempts.delete(key);
    return kept;
  }

  private sweep(now: number): void {
    for (const key of this.attempts.keys()) this.prune(key, now);
  }
}

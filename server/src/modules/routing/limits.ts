import { ServiceError } from '../../errors';
import type { Clock } from '../../lib/clock';
import type { Bucket, RateLimitDecision } from '../ratelimit';

/** What the deployment limits need of the product's rate limiter (modules/ratelimit's RateLimiter). */
export interface UnitLimiter {
  consume(buckets: Bucket[]): Promise<RateLimitDecision[]>;
}

/**
 * A deployment's own requests and tokens per minute (`rpm`, `tpm`: the upstream's quota), counted by the same
 * rate limiter as the keys' limits: GCRA buckets in Redis when it is configured (one atomic script for both
 * buckets, so every instance counts against one quota, exactly), in process otherwise or while Redis is down.
 * A call takes one request and its prompt + completion cap in tokens before it is sent (both, or neither), and
 * gives back what it did not use once its usage is known. Refused, the deployment is moved on from, and this
 * instance leaves it out of its order until the refusal's retry time (`limitedUntil`, on the limiter's clock):
 * only the first call after that asks the limiter again, so a deployment at its quota costs no extra round trip
 * a call.
 *
 * The buckets are GCRA's, not minute windows: a burst of `rpm` requests (or `tpm` tokens) at once, then room
 * again at the limit's pace (one request every 60 s / rpm), so there is no double burst at a minute's edge.
 */
export class DeploymentLimits {
  /** Until when (the clock's ms, as the limiter's) this instance knows the deployment is at its limit. */
  private limitedUntil = 0;
  private readonly rpmKey: string;
  private readonly tpmKey: string;

  constructor(
    private readonly limiter: UnitLimiter,
    private readonly clock: Clock,
    model: string,
    private readonly deployment: string,
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
  ) {
    this.rpmKey = `deployment:${model}:${deployment}:rpm`;
    this.tpmKey = `deployment:${model}:${deployment}:tpm`;
  }

  /** 0 when this instance should try the deployment now (the limiter has the last word, in `claim`), else the ms until it should. */
  restingMs(): number {
    return Math.max(0, this.limitedUntil - this.clock.now());
  }

  /**
   * Takes one request and `tokens` (capped at the tpm: a call larger than the quota goes once it is whole) of
   * the deployment's quota; throws `deployment_resting` when either has no room. Returns the tokens held, for
   * `settle`.
   */
  async claim(tokens: number): Promise<number> {
    const held = this.tpm === undefined ? 0 : Math.min(tokens, this.tpm);
    const buckets: Bucket[] = [];
    if (this.rpm !== undefined) buckets.push({ key: this.rpmKey, limit: this.rpm, cost: 1 });
    if (this.tpm !== undefined) buckets.push({ key: this.tpmKey, limit: this.tpm, cost: held });
    const decisions = await this.limiter.consume(buckets);
    if (decisions.every((d) => d.allowed)) return held;
    let waitMs = 1;
    for (const d of decisions) if (!d.allowed) waitMs = Math.max(waitMs, d.retryAfterMs);
    this.limitedUntil = Math.max(this.limitedUntil, this.clock.now() + waitMs);
    throw new ServiceError(
      'unavailable',
      `The upstream deployment '${this.deployment}' is at its own requests or tokens per minute.`,
      { code: 'deployment_resting', retryable: true, retryAfterMs: Math.max(1_000, waitMs) },
    );
  }

  /**
   * The call used `used` tokens of the `held` it took: the rest goes back to the quota. Not awaited by the call
   * (its answer does not wait on it); a failure to give back leaves the quota more spent than it
   * was, never less.
   */
  settle(held: number, used: number): void {
    if (this.tpm === undefined) return;
    const back = held - Math.min(used, held);
    if (back <= 0) return;
    this.limiter.consume([{ key: this.tpmKey, limit: this.tpm, cost: -back }]).catch(() => {});
  }
}

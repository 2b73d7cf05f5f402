import type { BreakerSpec } from './schema';

/** Where a deployment's circuit breaker stands (health.ts); exported as a gauge and in logs. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** What an attempt's end did to a deployment's breaker, for the router to log transitions (not every call). */
export type Transition = 'opened' | 'closed' | undefined;

/**
 * One deployment's health, in one small mutable object updated in place by each call (no timer, no per-call
 * allocation): consecutive failures, the error rate over the last one to two windows (two counters a window,
 * rolled when a call sees the window over), the latency of recent answers (an exponentially weighted mean), the
 * circuit breaker, and the cooldown an upstream's 429 asked for. Its own requests and tokens per minute are the
 * rate limiter's (limits.ts).
 *
 * Times are `performance.now()` milliseconds, passed in (tests and the router give the same clock).
 */
export class DeploymentHealth {
  state: BreakerState = 'closed';
  consecutiveFailures = 0;
  /** The mean time to an answer (a stream: its first chunk), weighted to recent calls; -1 before the first. */
  latencyMs = -1;
  /** Until when (ms) the deployment is left alone: its upstream answered 429 with this `retry-after`. */
  coolUntil = 0;
  private openUntil = 0;
  /** A half-open breaker lets one call through at a time. */
  private probing = false;
  /** -Infinity: no window or minute yet (performance.now() starts near 0 in a new process). */
  private windowStart = Number.NEGATIVE_INFINITY;
  private ok = 0;
  private failed = 0;
  private previousOk = 0;
  private previousFailed = 0;

  constructor(private readonly breaker: BreakerSpec) {}

  /** Whether a call may be sent now (the breaker and the upstream's rest allow it). Changes nothing. */
  available(now: number): boolean {
    if (now < this.coolUntil) return false;
    if (this.state === 'open' && now < this.openUntil) return false;
    return !(this.state === 'half_open' && this.probing);
  }

  /** How long an open breaker keeps the deployment out: a probe's lease lasts as long (sync.ts). */
  get cooldownMs(): number {
    return this.breaker.cooldown_ms;
  }

  /** When it may be tried again (ms), for a Retry-After when no deployment is available. */
  availableAt(now: number): number {
    let at = now;
    if (this.coolUntil > at) at = this.coolUntil;
    if (this.state === 'open' && this.openUntil > at) at = this.openUntil;
    return at;
  }

  /**
   * A call is sent. An open breaker past its cooldown makes this call its probe (half-open: the others skip the
   * deployment until it settles): true then, for the probe's lease across instances (deployment.ts).
   */
  begin(): boolean {
    if (this.state === 'open') this.state = 'half_open';
    if (this.state !== 'half_open') return false;
    this.probing = true;
    return true;
  }

  /**
   * Another instance holds the probe's lease: this one does not probe, and leaves the deployment out until the
   * lease ends (`until`), when the probe will have closed the breaker everywhere, or reopened it.
   */
  probedElsewhere(until: number): void {
    this.probing = false;
    // The other probe may have answered already (its close arrived while the lease was being asked for).
    if (this.state === 'closed') return;
    this.state = 'open';
    this.openUntil = Math.max(this.openUntil, until);
  }

  succeeded(now: number, latencyMs: number): Transition {
    this.roll(now);
    this.ok++;
    this.consecutiveFailures = 0;
    this.latencyMs = this.latencyMs < 0 ? latencyMs : this.latencyMs * 0.8 + latencyMs * 0.2;
    this.probing = false;
    if (this.state === 'closed') return undefined;
    // The probe answered: closed, with the window's old failures forgotten (or the rate would reopen it).
    this.state = 'closed';
    this.ok = 1;
    this.failed = 0;
    this.previousOk = 0;
    this.previousFailed = 0;
    return 'closed';
  }

  failedCall(now: number): Transition {
    this.roll(now);
    this.failed++;
    this.consecutiveFailures++;
    this.probing = false;
    if (this.state === 'half_open') return this.open(now);
    if (this.state === 'open') return undefined;
    const calls = this.ok + this.failed + this.previousOk + this.previousFailed;
    const rate = (this.failed + this.previousFailed) / calls;
    if (
      this.consecutiveFailures >= this.breaker.failures ||
      (calls >= this.breaker.min_requests && rate >= this.breaker.error_rate)
    )
      return this.open(now);
    return undefined;
  }

  /** The upstream said to come back later: no call until then; not a failure of its health. */
  rateLimited(now: number, retryAfterMs: number): void {
    this.coolUntil = Math.max(this.coolUntil, now + retryAfterMs);
    this.probing = false;
  }

  /** Until when (ms) an open breaker keeps the deployment out, for another instance to do the same (sync.ts). */
  get openUntilMs(): number {
    return this.openUntil;
  }

  /** Another instance was told by the upstream to wait (sync.ts): no call from here either until `until`. */
  restedElsewhere(until: number): void {
    this.coolUntil = Math.max(this.coolUntil, until);
  }

  /**
   * Another instance opened the breaker: open here too until `until`. A probe of this instance's own under way
   * still settles it (closed when it answers, open again when it fails).
   */
  openedElsewhere(until: number): void {
    this.state = 'open';
    this.openUntil = Math.max(this.openUntil, until);
  }

  /** Another instance's probe answered: closed here too, with the failures counted so far forgotten. */
  closedElsewhere(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.consecutiveFailures = 0;
    this.failed = 0;
    this.previousFailed = 0;
  }

  /** The call ended without saying anything of the deployment (the client left, or the request was refused as invalid). */
  neutral(): void {
    this.probing = false;
  }

  private open(now: number): Transition {
    this.state = 'open';
    this.openUntil = now + this.breaker.cooldown_ms;
    return 'opened';
  }

  /** Moves the window on when it is over: the last one becomes the previous one (or both empty after two). */
  private roll(now: number): void {
    const elapsed = now - this.windowStart;
    if (elapsed < this.breaker.window_ms) return;
    const adjacent = elapsed < 2 * this.breaker.window_ms;
    this.previousOk = adjacent ? this.ok : 0;
    this.previousFailed = adjacent ? this.failed : 0;
    this.ok = 0;
    this.failed = 0;
    this.windowStart = now;
  }
}

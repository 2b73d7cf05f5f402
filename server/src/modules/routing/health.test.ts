import { describe, expect, it } from 'vitest';
import { DeploymentHealth } from './health';
import { BreakerSpec } from './schema';

const breaker = BreakerSpec.parse({
  failures: 3,
  error_rate: 0.5,
  min_requests: 4,
  window_ms: 1_000,
  cooldown_ms: 500,
});

describe('DeploymentHealth', () => {
  it("applies another instance's changes: a rest, an open breaker until its end, and the close of its probe", () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    h.restedElsewhere(100);
    expect(h.available(99, 1)).toBe(false);
    expect(h.availableAt(0)).toBe(100);
    expect(h.available(100, 1)).toBe(true);
    h.openedElsewhere(300);
    expect(h.state).toBe('open');
    expect(h.available(299, 1)).toBe(false);
    // After the shared cooldown this instance may probe once, as with a breaker it opened itself.
    expect(h.available(300, 1)).toBe(true);
    h.begin(300, 1);
    expect(h.available(301, 1)).toBe(false);
    h.closedElsewhere();
    expect(h.state).toBe('closed');
    expect(h.consecutiveFailures).toBe(0);
  });

  it('opens after N consecutive failures, lets one probe through after the cooldown, and closes when it answers', () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    for (let i = 0; i < 2; i++) {
      h.begin(10, 1);
      expect(h.failedCall(10)).toBeUndefined();
    }
    h.begin(10, 1);
    expect(h.failedCall(10)).toBe('opened');
    expect(h.available(20, 1)).toBe(false);
    expect(h.available(509, 1)).toBe(false);
    expect(h.availableAt(20)).toBe(510);
    expect(h.available(510, 1)).toBe(true);
    h.begin(510, 1);
    expect(h.state).toBe('half_open');
    // One probe at a time.
    expect(h.available(511, 1)).toBe(false);
    expect(h.succeeded(530, 20)).toBe('closed');
    expect(h.state).toBe('closed');
    expect(h.available(531, 1)).toBe(true);
  });

  it('a failed probe opens it again for another cooldown; a probe the client abandoned frees the slot', () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    for (let i = 0; i < 3; i++) {
      h.begin(0, 1);
      h.failedCall(0);
    }
    h.begin(600, 1);
    h.neutral();
    expect(h.available(601, 1)).toBe(true);
    h.begin(601, 1);
    expect(h.failedCall(602)).toBe('opened');
    expect(h.available(1_000, 1)).toBe(false);
    expect(h.available(1_102, 1)).toBe(true);
  });

  it('opens on the error rate over the window once it holds min_requests calls, and forgets windows long past', () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    // ok, fail, ok, fail: never 3 in a row, but 2 of 4 = 50 %.
    h.succeeded(0, 5);
    expect(h.failedCall(1)).toBeUndefined();
    h.succeeded(2, 5);
    expect(h.failedCall(3)).toBe('opened');
    const later = new DeploymentHealth(breaker, undefined, undefined);
    later.succeeded(0, 5);
    later.failedCall(1);
    later.succeeded(2, 5);
    // Two windows on, the old calls no longer count: one failure of one call is below min_requests.
    expect(later.failedCall(2_500)).toBeUndefined();
  });

  it("a 429's retry-after rests the deployment without counting as a failure", () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    h.begin(0, 1);
    h.rateLimited(0, 2_000);
    expect(h.available(1_999, 1)).toBe(false);
    expect(h.availableAt(5)).toBe(2_000);
    expect(h.available(2_000, 1)).toBe(true);
    expect(h.consecutiveFailures).toBe(0);
    expect(h.state).toBe('closed');
  });

  it('keeps to its own requests and tokens per minute, settling tokens to the usage', () => {
    const h = new DeploymentHealth(breaker, 2, 100);
    expect(h.available(0, 60)).toBe(true);
    h.begin(0, 60);
    expect(h.available(1, 60)).toBe(false);
    h.settleTokens(0, 60, 10);
    expect(h.available(1, 60)).toBe(true);
    h.begin(1, 60);
    // Two requests this minute: the RPM is spent.
    expect(h.available(2, 1)).toBe(false);
    expect(h.availableAt(2)).toBe(60_000);
    expect(h.available(60_000, 1)).toBe(true);
  });

  it('weights recent latency', () => {
    const h = new DeploymentHealth(breaker, undefined, undefined);
    expect(h.latencyMs).toBe(-1);
    h.succeeded(0, 100);
    h.succeeded(1, 200);
    expect(h.latencyMs).toBeCloseTo(120);
  });
});

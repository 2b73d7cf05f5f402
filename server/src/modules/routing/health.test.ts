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
    const h = new DeploymentHealth(breaker);
    h.restedElsewhere(100);
    expect(h.available(99)).toBe(false);
    expect(h.availableAt(0)).toBe(100);
    expect(h.available(100)).toBe(true);
    h.openedElsewhere(300);
    expect(h.state).toBe('open');
    expect(h.available(299)).toBe(false);
    // After the shared cooldown this instance may probe once, as with a breaker it opened itself.
    expect(h.available(300)).toBe(true);
    h.begin();
    expect(h.available(301)).toBe(false);
    h.closedElsewhere();
    expect(h.state).toBe('closed');
    expect(h.consecutiveFailures).toBe(0);
  });

  it('opens after N consecutive failures, lets one probe through after the cooldown, and closes when it answers', () => {
    const h = new DeploymentHealth(breaker);
    for (let i = 0; i < 2; i++) {
      h.begin();
      expect(h.failedCall(10)).toBeUndefined();
    }
    h.begin();
    expect(h.failedCall(10)).toBe('opened');
    expect(h.available(20)).toBe(false);
    expect(h.available(509)).toBe(false);
    expect(h.availableAt(20)).toBe(510);
    expect(h.available(510)).toBe(true);
    h.begin();
    expect(h.state).toBe('half_open');
    // One probe at a time.
    expect(h.available(511)).toBe(false);
    expect(h.succeeded(530, 20)).toBe('closed');
    expect(h.state).toBe('closed');
    expect(h.available(531)).toBe(true);
  });

  it('a failed probe opens it again for another cooldown; a probe the client abandoned frees the slot', () => {
    const h = new DeploymentHealth(breaker);
    for (let i = 0; i < 3; i++) {
      h.begin();
      h.failedCall(0);
    }
    h.begin();
    h.neutral();
    expect(h.available(601)).toBe(true);
    h.begin();
    expect(h.failedCall(602)).toBe('opened');
    expect(h.available(1_000)).toBe(false);
    expect(h.available(1_102)).toBe(true);
  });

  it('opens on the error rate over the window once it holds min_requests calls, and forgets windows long past', () => {
    const h = new DeploymentHealth(breaker);
    // ok, fail, ok, fail: never 3 in a row, but 2 of 4 = 50 %.
    h.succeeded(0, 5);
    expect(h.failedCall(1)).toBeUndefined();
    h.succeeded(2, 5);
    expect(h.failedCall(3)).toBe('opened');
    const later = new DeploymentHealth(breaker);
    later.succeeded(0, 5);
    later.failedCall(1);
    later.succeeded(2, 5);
    // Two windows on, the old calls no longer count: one failure of one call is below min_requests.
    expect(later.failedCall(2_500)).toBeUndefined();
  });

  it("a 429's retry-after rests the deployment without counting as a failure", () => {
    const h = new DeploymentHealth(breaker);
    h.begin();
    h.rateLimited(0, 2_000);
    expect(h.available(1_999)).toBe(false);
    expect(h.availableAt(5)).toBe(2_000);
    expect(h.available(2_000)).toBe(true);
    expect(h.consecutiveFailures).toBe(0);
    expect(h.state).toBe('closed');
  });

  it('weights recent latency', () => {
    const h = new DeploymentHealth(breaker);
    expect(h.latencyMs).toBe(-1);
    h.succeeded(0, 100);
    h.succeeded(1, 200);
    expect(h.latencyMs).toBeCloseTo(120);
  });
});

import { describe, expect, it } from 'vitest';
import { AttemptThrottle } from './throttle';

describe('AttemptThrottle', () => {
  it('allows `limit` attempts per window, then says how long to wait', () => {
    let now = 0;
    const t = new AttemptThrottle({ now: () => now }, 3, 60_000);
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfterMs('a')).toBe(0);
      t.record('a');
      now += 1_000;
    }
    expect(t.retryAfterMs('a')).toBe(57_000);
    expect(t.retryAfterMs('b')).toBe(0);
    now = 60_001;
    expect(t.retryAfterMs('a')).toBe(0);
  });

  it('reset clears a key', () => {
    const t = new AttemptThrottle({ now: () => 0 }, 1, 1_000);
    t.record('a');
    expect(t.retryAfterMs('a')).toBeGreaterThan(0);
    t.reset('a');
    expect(t.retryAfterMs('a')).toBe(0);
  });
});

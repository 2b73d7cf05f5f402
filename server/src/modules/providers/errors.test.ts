import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, upstreamStatusError } from './errors';

describe('retry-after from an upstream', () => {
  const now = Date.parse('2026-11-30T00:00:00Z');

  it('reads delay-seconds, rounding a fraction up', () => {
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds(' 1.5 ', now)).toBe(2);
  });

  it('reads an HTTP-date as the seconds until it', () => {
    expect(retryAfterSeconds('Mon, 30 Nov 2026 00:00:42 GMT', now)).toBe(42);
    expect(retryAfterSeconds('Mon, 30 Nov 2026 00:02:00 GMT', now)).toBe(120);
  });

  it('is 1 s when missing, unreadable, zero or in the past', () => {
    expect(retryAfterSeconds(undefined, now)).toBe(1);
    expect(retryAfterSeconds('soon', now)).toBe(1);
    expect(retryAfterSeconds('0', now)).toBe(1);
    expect(retryAfterSeconds('-5', now)).toBe(1);
    expect(retryAfterSeconds('Sun, 29 Nov 2026 23:00:00 GMT', now)).toBe(1);
  });

  it('gives a 429 its wait in the error the client and the router read', () => {
    const err = upstreamStatusError('openai', 429, { retryAfter: '7' });
    expect(err.retryAfterMs).toBe(7_000);
    expect(err.retryable).toBe(true);
  });
});

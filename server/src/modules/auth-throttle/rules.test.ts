import { describe, expect, it } from 'vitest';
import { type AttemptRule, type AttemptState, attemptStep } from './rules';

const BACKOFF: AttemptRule = {
  kind: 'backoff',
  freeAttempts: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 5_000,
  forgetAfterMs: 60_000,
};
const WINDOW: AttemptRule = { kind: 'window', limit: 2, windowMs: 10_000 };

/** Runs attempts at the given times; returns each decision's (allowed, retry) and the final state. */
function run(rule: AttemptRule, times: number[]): { results: [boolean, number][]; state?: AttemptState } {
  let state: AttemptState | undefined;
  const results: [boolean, number][] = [];
  for (const t of times) {
    const { decision, next } = attemptStep(state, t, rule);
    if (next) state = next;
    results.push([decision.allowed, decision.retryAfterMs]);
  }
  return { results, ...(state && { state }) };
}

describe('attemptStep', () => {
  it('backoff: free attempts at once, then a doubling wait capped at the maximum', () => {
    const { results } = run(BACKOFF, [0, 0, 0, 0, 1_000, 1_000, 3_000, 7_000, 12_000, 12_000]);
    expect(results).toEqual([
      [true, 0],
      [true, 0],
      [true, 0], // the 3rd: next waits 1 s
      [false, 1_000],
      [true, 0], // the 4th: next waits 2 s
      [false, 2_000],
      [true, 0], // 4 s
      [true, 0], // 8 s, capped at 5 s
      [true, 0], // 5 s
      [false, 5_000],
    ]);
  });

  it('backoff: a refusal changes nothing; the state is forgotten after a quiet spell', () => {
    const { state } = run(BACKOFF, [0, 0, 0]);
    expect(attemptStep(state, 500, BACKOFF).next).toBeUndefined();
    expect(attemptStep(state, 1_000 + 60_000 + 1, BACKOFF).next?.count).toBe(1);
  });

  it('window: `limit` attempts per window, then the time to its end', () => {
    const { results } = run(WINDOW, [0, 4_000, 6_000, 10_000, 10_000, 10_000]);
    expect(results).toEqual([
      [true, 0],
      [true, 0],
      [false, 4_000],
      [true, 0],
      [true, 0],
      [false, 10_000],
    ]);
  });
});

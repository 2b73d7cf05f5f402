/**
 * What an attempt counter allows. Two kinds, decided by one pure step (`attemptStep`) that every store runs
 * (in process for tests, in a Postgres transaction, or as the Lua script in redis-script.ts: keep them in step).
 *
 * - `backoff` (per email, OWASP ASVS 2.2.1's "increasing delays"): the first `freeAttempts` come at once, then
 *   each attempt must wait `baseDelayMs` doubling per attempt, up to `maxDelayMs`. An attempt is counted when
 *   it is let through (before its password is checked), so concurrent attempts on many instances cannot
 *   slip past; a success clears the counter. The owner is slowed by at most `maxDelayMs`, never locked out,
 *   and guessing is held to about 3,600 / maxDelayMs s an hour. Forgotten after `forgetAfterMs` of quiet.
 * - `window` (per client address): at most `limit` attempts per fixed window of `windowMs`.
 */
export type AttemptRule =
  | { kind: 'backoff'; freeAttempts: number; baseDelayMs: number; maxDelayMs: number; forgetAfterMs: number }
  | { kind: 'window'; limit: number; windowMs: number };

export interface AttemptState {
  count: number;
  /** Backoff: the earliest next attempt (ms since the epoch); window: unused (0). */
  nextAtMs: number;
  /** When the state is forgotten: the window's end, or `forgetAfterMs` after the last attempt. */
  expiresAtMs: number;
}

export interface AttemptDecision {
  allowed: boolean;
  /** Until another attempt would be let through; 0 when allowed. */
  retryAfterMs: number;
}

/** The wait after the `count`-th attempt of a backoff rule. */
export function backoffDelayMs(rule: Extract<AttemptRule, { kind: 'backoff' }>, count: number): number {
  if (count < rule.freeAttempts) return 0;
  return Math.min(rule.maxDelayMs, rule.baseDelayMs * 2 ** Math.min(30, count - rule.freeAttempts));
}

/** One attempt at `nowMs`: the decision, and the state to store (undefined when a refusal changes nothing). */
export function attemptStep(
  stored: AttemptState | undefined,
  nowMs: number,
  rule: AttemptRule,
): { decision: AttemptDecision; next: AttemptState | undefined } {
  const state = stored && stored.expiresAtMs > nowMs ? stored : { count: 0, nextAtMs: 0, expiresAtMs: 0 };
  if (rule.kind === 'window') {
    const windowEnd = state.count === 0 ? nowMs + rule.windowMs : state.expiresAtMs;
    if (state.count >= rule.limit) {
      return { decision: { allowed: false, retryAfterMs: Math.max(1, windowEnd - nowMs) }, next: undefined };
    }
    return {
      decision: { allowed: true, retryAfterMs: 0 },
      next: { count: state.count + 1, nextAtMs: 0, expiresAtMs: windowEnd },
    };
  }
  if (state.nextAtMs > nowMs) {
    return { decision: { allowed: false, retryAfterMs: state.nextAtMs - nowMs }, next: undefined };
  }
  const count = state.count + 1;
  const nextAtMs = nowMs + backoffDelayMs(rule, count);
  return {
    decision: { allowed: true, retryAfterMs: 0 },
    next: { count, nextAtMs, expiresAtMs: Math.max(nextAtMs, nowMs) + rule.forgetAfterMs },
  };
}

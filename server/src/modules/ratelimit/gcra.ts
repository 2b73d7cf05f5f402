/**
 * GCRA (generic cell rate algorithm) for "L requests per minute" with a burst of L.
 *
 * State is the theoretical arrival time `tat` (µs) and the emission interval it was built with.
 * Each request costs one interval T = 60 s / L; a request is admitted when, after adding its T, the
 * backlog `tat - now` stays within the tolerance L·T (one minute). So an idle account can send L at
 * once, then one more every T, and never more than L + (elapsed / T) in any span: no 2x at a window edge.
 *
 * Integer microseconds keep L admissions at one instant exact (k·T ≤ L·T for k ≤ L) where float
 * milliseconds would drift. A request may take several units (`cost`: a deployment's tokens per minute, modules/
 * routing): it adds cost·T, so the burst is exactly L units; with a large L, T = 60 s / L is rounded to whole
 * microseconds, so the refill is within half a microsecond a unit of L a minute (L = 1,000,000: 60 µs, exact). `redis-script.ts` is the same algorithm in Lua; keep them in step.
 */
export const WINDOW_US = 60_000_000;

export interface GcraState {
  /** Theoretical arrival time, µs since the epoch. */
  tat: number;
  /** The emission interval (µs) the state was written with, to rescale after a limit change. */
  interval: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests that could still be sent right now. */
  remaining: number;
  /** Time until the bucket is full again (OpenAI's reset-requests), ms. */
  resetMs: number;
  /** Time until one more request would be admitted; 0 when allowed. */
  retryAfterMs: number;
}

export function intervalFor(limit: number): number {
  return Math.max(1, Math.round(WINDOW_US / limit));
}

/**
 * One request at `nowUs` against `state`. Returns the decision and the state to store (undefined
 * when nothing changed, i.e. a denial that needed no rescaling).
 */
export function gcraStep(
  state: GcraState | undefined,
  nowUs: number,
  limit: number,
  /**
   * Units this request takes (1 for a request; a call's tokens for a tokens-per-minute bucket), capped at the
   * limit so that a call larger than the whole budget still passes once the bucket is full. Negative: units given
   * back (a call that used fewer tokens than it held), always admitted, never below an empty backlog.
   */
  cost = 1,
): { decision: RateLimitDecision; next: GcraState | undefined; rescaled: GcraState | undefined } {
  const interval = intervalFor(limit);
  const tolerance = limit * interval;
  let tat = state?.tat ?? nowUs;
  let rescaled = false;
  if (state && state.interval !== interval) {
    // A plan change keeps the number of requests in the bucket (capped at the new limit),
    // not its fill ratio: an exhausted Free account upgraded to Pro gets Pro's headroom at once.
    const backlog = Math.min(Math.max(0, tat - nowUs) / state.interval, limit);
    tat = nowUs + Math.round(backlog * interval);
    rescaled = true;
  }
  const rescaledState = rescaled ? { tat, interval } : undefined;
  if (tat < nowUs) tat = nowUs;
  const newTat = Math.max(nowUs, tat + Math.min(cost, limit) * interval);
  if (newTat - nowUs > tolerance) {
    return {
      decision: decide(false, limit, tat - nowUs, newTat - nowUs - tolerance, interval),
      next: rescaledState,
      rescaled: rescaledState,
    };
  }
  return {
    decision: decide(true, limit, newTat - nowUs, 0, interval),
    next: { tat: newTat, interval },
    rescaled: rescaledState,
  };
}

/** One bucket of a combined check: its key, its limit per minute, and the units this request takes (1). */
export interface Bucket {
  key: string;
  limit: number;
  cost?: number;
}

/**
 * One request against several buckets at once (the account's and the key's): admitted only when every bucket
 * admits it, and then counted in every one; refused, it is counted in none (a rescaled state is still kept).
 * Returns each bucket's decision and the states to store.
 */
export function gcraSteps(
  states: (GcraState | undefined)[],
  nowUs: number,
  limits: number[],
  costs?: number[],
): { decisions: RateLimitDecision[]; next: (GcraState | undefined)[] } {
  const steps = limits.map((limit, i) => gcraStep(states[i], nowUs, limit, costs?.[i] ?? 1));
  const allowed = steps.every((s) => s.decision.allowed);
  return {
    decisions: steps.map((s) => s.decision),
    next: steps.map((s) => (allowed ? s.next : s.rescaled)),
  };
}

/** Builds the decision from the raw GCRA outputs (shared with the Redis store). */
export function decide(
  allowed: boolean,
  limit: number,
  backlogUs: number,
  retryUs: number,
  interval: number,
): RateLimitDecision {
  const tolerance = limit * interval;
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.floor((tolerance - backlogUs) / interval)),
    resetMs: Math.ceil(backlogUs / 1000),
    retryAfterMs: Math.ceil(retryUs / 1000),
  };
}

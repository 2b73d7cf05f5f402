/**
 * Latency histograms for the rollups and the percentile estimates: log-scale buckets, 8 to each doubling
 * (each bucket's upper bound is 2^(1/8) ≈ 1.09 times its lower one), from 0.125 ms to 131 s, then one open
 * bucket. Fixed so that histograms of any two rollup rows add up element by element, whatever the period.
 *
 * How exact a percentile is: the estimate lies in the bucket that holds the true value, so it is within 9 %
 * of it (one bucket's width), and it is never above the largest latency of the requests counted (each rollup
 * row keeps its maximum). The same requests give the same figure whatever the period or granularity.
 */
const PER_DOUBLING = 8;
const FIRST_EXPONENT = -3;
const DOUBLINGS = 20;

/** Upper bounds in ms of every bucket but the last, which is open. */
export const LATENCY_BOUNDS_MS: readonly number[] = Array.from(
  { length: PER_DOUBLING * DOUBLINGS + 1 },
  (_, i) => 2 ** (FIRST_EXPONENT + i / PER_DOUBLING),
);
/** One more bucket than bounds: everything above the last bound. */
export const HISTOGRAM_SIZE = LATENCY_BOUNDS_MS.length + 1;

export function emptyHistogram(): number[] {
  return new Array<number>(HISTOGRAM_SIZE).fill(0);
}

/** The bucket of a latency: the first whose upper bound is at least it. */
export function bucketOf(latencyMs: number): number {
  if (!(latencyMs > (LATENCY_BOUNDS_MS[0] ?? 0))) return 0;
  const last = LATENCY_BOUNDS_MS.length;
  let i = Math.ceil((Math.log2(latencyMs) - FIRST_EXPONENT) * PER_DOUBLING);
  if (i >= last) return last;
  // log2 rounds: settle on the exact bucket by the bounds themselves.
  while (i > 0 && latencyMs <= (LATENCY_BOUNDS_MS[i - 1] ?? 0)) i--;
  while (i < last && latencyMs > (LATENCY_BOUNDS_MS[i] ?? Number.POSITIVE_INFINITY)) i++;
  return i;
}

export function addInto(target: number[], source: readonly number[]): void {
  for (let i = 0; i < HISTOGRAM_SIZE; i++) target[i] = (target[i] ?? 0) + (source[i] ?? 0);
}

/**
 * The q-quantile of a histogram: the rank's place inside the bucket that holds it, interpolated on the log
 * scale the buckets use, and never above `maxMs` (the largest latency counted) when it is known. Null for an
 * empty histogram.
 */
export function quantile(histogram: readonly number[], q: number, maxMs?: number | null): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(q * total, Number.MIN_VALUE);
  const cap = maxMs ?? Number.POSITIVE_INFINITY;
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_SIZE; i++) {
    const n = histogram[i] ?? 0;
    if (n > 0 && seen + n >= rank) {
      if (i === 0) return Math.min(LATENCY_BOUNDS_MS[0] ?? 0, cap);
      const lower = LATENCY_BOUNDS_MS[i - 1] ?? 0;
      const upper = LATENCY_BOUNDS_MS[i];
      // The open last bucket: its values are above `lower`, and the largest of them is the best bound known.
      if (upper === undefined) return Number.isFinite(cap) ? Math.max(cap, lower) : lower;
      return Math.min(lower * (upper / lower) ** ((rank - seen) / n), cap);
    }
    seen += n;
  }
  return null;
}

/**
 * Fixed latency buckets (upper bounds, ms) shared by the rollups and the percentile estimates. Fixed so that
 * histograms of any two rollup rows add up element by element.
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000] as const;
/** One more bucket than bounds: everything above the last bound. */
export const HISTOGRAM_SIZE = LATENCY_BOUNDS_MS.length + 1;

export function emptyHistogram(): number[] {
  return new Array<number>(HISTOGRAM_SIZE).fill(0);
}

export function bucketOf(latencyMs: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) {
    if (latencyMs <= (LATENCY_BOUNDS_MS[i] ?? 0)) return i;
  }
  return LATENCY_BOUNDS_MS.length;
}

export function addInto(target: number[], source: readonly number[]): void {
  for (let i = 0; i < HISTOGRAM_SIZE; i++) target[i] = (target[i] ?? 0) + (source[i] ?? 0);
}

/**
 * The q-quantile estimated from a histogram by linear interpolation inside the bucket that holds it; the
 * open last bucket reports the last bound. Null for an empty histogram.
 */
export function quantile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_SIZE; i++) {
    const n = histogram[i] ?? 0;
    if (n > 0 && seen + n >= rank) {
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] ?? 0);
      const upper = LATENCY_BOUNDS_MS[i] ?? lower;
      return lower + ((upper - lower) * (rank - seen)) / n;
    }
    seen += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] ?? null;
}

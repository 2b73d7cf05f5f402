/** A "nice" upper bound whose half is also round (the middle grid line): 0 → 1, 3 → 4, 6 → 6, 37 → 40, 1234 → 2000. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const exp = 10 ** Math.floor(Math.log10(max));
  const f = max / exp;
  const nice = [1, 2, 4, 6, 8, 10].find((n) => f <= n) ?? 10;
  return nice * exp;
}

/** Tick label for a bucket start: the time within two hours, the date and time within a day and a half, the date beyond. */
export function bucketLabel(iso: string, spanMs: number): string {
  const d = new Date(iso);
  const time = { hour: '2-digit', minute: '2-digit', hour12: false } as const;
  if (spanMs <= 2 * 3_600_000) return d.toLocaleTimeString(undefined, time);
  if (spanMs <= 36 * 3_600_000)
    return d.toLocaleString(undefined, { month: 'short', day: 'numeric', ...time });
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** Indexes of at most `count` evenly spaced ticks, always including the first and last. */
export function tickIndexes(length: number, count: number): number[] {
  if (length <= 0) return [];
  if (length <= count) return Array.from({ length }, (_, i) => i);
  const step = (length - 1) / (count - 1);
  return Array.from({ length: count }, (_, i) => Math.round(i * step));
}

/** The viewBox: small enough that 11px labels stay legible when three charts share a row. */
export const CHART = { width: 360, height: 180, left: 46, right: 6, top: 10, bottom: 22 } as const;

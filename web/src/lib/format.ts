/** 1234 → "1.2K", 2_500_000 → "2.5M": compact counts for cards. */
export function abbreviate(n: number): string {
  const abs = Math.abs(n);
  const trim = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1).replace(/\.0$/, ''));
  if (abs >= 1e9) return `${trim(n / 1e9)}B`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e3) return `${trim(n / 1e3)}K`;
  return String(n);
}

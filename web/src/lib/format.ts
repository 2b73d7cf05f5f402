/**
 * An amount given in micro-units (millionths) of `currency`, as money: cents where they matter, more digits for
 * amounts under one unit (model calls cost fractions of a cent).
 */
export function money(micros: number, currency: string): string {
  const amount = micros / 1_000_000;
  const digits = amount !== 0 && Math.abs(amount) < 1 ? 4 : 2;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amount);
}

/** 1234 → "1.2K", 2_500_000 → "2.5M": compact counts for cards. */
export function abbreviate(n: number): string {
  const abs = Math.abs(n);
  const trim = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1).replace(/\.0$/, ''));
  if (abs >= 1e9) return `${trim(n / 1e9)}B`;
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e3) return `${trim(n / 1e3)}K`;
  return Number.isInteger(n) ? String(n) : trim(n);
}

/** "just now", "3 min ago", "2 h ago", "5 days ago": how long ago `iso` was, seen at `now`. */
export function relativeTime(iso: string | Date, now: Date = new Date()): string {
  const t = typeof iso === 'string' ? new Date(iso) : iso;
  const diff = now.getTime() - t.getTime();
  if (Number.isNaN(diff)) return '—';
  if (diff < 45_000) return 'just now';
  if (diff < 3_600_000) return `${Math.max(1, Math.floor(diff / 60_000))} min ago`;
  if (diff < 86_400_000) return `${Math.floor(diff / 3_600_000)} h ago`;
  const days = Math.floor(diff / 86_400_000);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** 0.9871 → "98.7%"; null (nothing to divide) → "—". */
export function percent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '—';
  return `${(ratio * 100).toFixed(digits).replace(/\.0+$/, '')}%`;
}

/** 12.4 → "12 ms", 1530 → "1.53 s". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.round(ms)} ms`;
}

/** The change of `current` against `previous` as a signed percentage, or null when there is no base. */
export function change(current: number, previous: number | null | undefined): number | null {
  if (previous === null || previous === undefined || previous === 0) return null;
  return (current - previous) / Math.abs(previous);
}

export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function date(iso: string | Date): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

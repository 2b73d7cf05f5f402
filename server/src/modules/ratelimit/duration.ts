/**
 * Formats a duration as OpenAI's rate-limit headers do (Go's `time.Duration` style):
 * `0s`, `600ms`, `1s`, `1.5s`, `59.4s`, `6m0s`, `1h2m3s`.
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  // An integer number of ms over 1000 prints with at most three decimals (the division is correctly rounded,
  // and the shortest text that reads back as it is the decimal itself): no toFixed needed, on every call.
  const secondsText = `${(total % 60_000) / 1000}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

import { describe, expect, it } from 'vitest';
import { periodOf } from './period';

describe('periodOf', () => {
  it('is the UTC calendar month, also when asked out of order across month and year ends', () => {
    const at = (iso: string) => periodOf(Date.parse(iso));
    const cases: [string, string, string][] = [
      ['2026-12-31T23:59:59.999Z', '2026-12-01', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2027-01-01', '2027-02-01T00:00:00.000Z'],
      ['2026-12-15T12:00:00.000Z', '2026-12-01', '2027-01-01T00:00:00.000Z'],
      ['2024-02-29T08:00:00.000Z', '2024-02-01', '2024-03-01T00:00:00.000Z'],
      ['2026-12-01T00:00:00.000Z', '2026-12-01', '2027-01-01T00:00:00.000Z'],
      ['2026-11-30T23:59:59.999Z', '2026-11-01', '2026-12-01T00:00:00.000Z'],
    ];
    for (const [now, start, resets] of [...cases, ...cases]) {
      const period = at(now);
      expect([period.start, period.resetsAt.toISOString()], now).toEqual([start, resets]);
    }
  });
});

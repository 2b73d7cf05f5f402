import { describe, expect, it } from 'vitest';
import { resolvePeriod } from './period';

const NOW = Date.parse('2026-03-15T10:37:12.345Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('resolvePeriod', () => {
  it('reads minute rollups for an hour, in one-minute buckets', () => {
    const p = resolvePeriod({ preset: 'last_1h' }, NOW, 3);
    expect([p.granularity, p.bucketMs, p.from.toISOString()]).toEqual([
      'minute',
      MIN,
      '2026-03-15T09:37:00.000Z',
    ]);
  });

  it('reads minute rollups for 24 h, in hourly buckets, with the previous 24 h before it', () => {
    const p = resolvePeriod({ preset: 'last_24h' }, NOW, 3);
    expect(p.granularity).toBe('minute');
    expect(p.bucketMs).toBe(HOUR);
    expect(p.to.getTime()).toBe(NOW);
    expect(p.from.toISOString()).toBe('2026-03-14T10:37:00.000Z');
    expect(p.from.getTime() - p.previousFrom.getTime()).toBe(p.to.getTime() - p.from.getTime());
  });

  it('reads hourly rollups for 7 days (3-hour buckets) and daily ones for 30 days (1-day buckets)', () => {
    const week = resolvePeriod({ preset: 'last_7d' }, NOW, 3);
    expect([week.granularity, week.bucketMs, week.from.toISOString()]).toEqual([
      'hour',
      3 * HOUR,
      '2026-03-08T10:00:00.000Z',
    ]);
    const month = resolvePeriod({ preset: 'last_30d' }, NOW, 3);
    expect([month.granularity, month.bucketMs, month.from.toISOString()]).toEqual([
      'day',
      DAY,
      '2026-02-13T00:00:00.000Z',
    ]);
  });

  it('falls back to hourly rollups for a short period older than the minute retention', () => {
    const from = new Date(NOW - 10 * DAY);
    const p = resolvePeriod({ preset: 'custom', from, to: new Date(from.getTime() + 6 * HOUR) }, NOW, 3);
    expect(p.granularity).toBe('hour');
    expect(p.bucketMs).toBe(HOUR);
  });

  it('refuses incomplete, inverted, too long or misplaced bounds', () => {
    const d = (s: string) => new Date(s);
    expect(() => resolvePeriod({ preset: 'custom', from: d('2026-01-01T00:00:00Z') }, NOW, 3)).toThrow(
      /both/,
    );
    expect(() =>
      resolvePeriod(
        { preset: 'custom', from: d('2026-02-01T00:00:00Z'), to: d('2026-01-01T00:00:00Z') },
        NOW,
        3,
      ),
    ).toThrow(/earlier/);
    expect(() =>
      resolvePeriod(
        { preset: 'custom', from: d('2024-01-01T00:00:00Z'), to: d('2026-01-01T00:00:00Z') },
        NOW,
        3,
      ),
    ).toThrow(/400 days/);
    expect(() => resolvePeriod({ preset: 'last_7d', from: d('2026-01-01T00:00:00Z') }, NOW, 3)).toThrow(
      /custom/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { bucketLabel, niceMax, tickIndexes } from './scale';

describe('chart scales', () => {
  it('rounds the axis maximum up to a value whose half is round', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(3)).toBe(4);
    expect(niceMax(6)).toBe(6);
    expect(niceMax(37)).toBe(40);
    expect(niceMax(1234)).toBe(2000);
    expect(niceMax(5000)).toBe(6000);
  });

  it('spreads ticks evenly, first and last included', () => {
    expect(tickIndexes(96, 4)).toEqual([0, 32, 63, 95]);
    expect(tickIndexes(3, 4)).toEqual([0, 1, 2]);
    expect(tickIndexes(0, 4)).toEqual([]);
  });

  it('labels buckets by time within an hour, by date and time within a day, by date beyond', () => {
    expect(bucketLabel('2026-01-10T04:00:00Z', 3_600_000)).toMatch(/^\d{2}:\d{2}$/);
    expect(bucketLabel('2026-01-10T04:00:00Z', 24 * 3_600_000)).toMatch(/Jan.*\d{2}:\d{2}/);
    const day = new Date('2026-01-10T04:00:00Z').toLocaleDateString(undefined, {
      month: 'short',
      day: 'numeric',
    });
    expect(bucketLabel('2026-01-10T04:00:00Z', 7 * 24 * 3_600_000)).toBe(day);
  });
});

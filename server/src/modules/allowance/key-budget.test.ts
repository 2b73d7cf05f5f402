import { describe, expect, it } from 'vitest';
import { keyBudgetPeriod } from './key-budget';

describe('keyBudgetPeriod', () => {
  const at = Date.UTC(2026, 10, 26, 23, 59, 59); // a Thursday

  it('a day runs from 00:00 UTC to the next', () => {
    expect(keyBudgetPeriod('day', at)).toEqual({
      start: '2026-11-26',
      resetsAt: new Date('2026-11-27T00:00:00Z'),
    });
  });

  it('a week runs from Monday to Monday, across a month end', () => {
    expect(keyBudgetPeriod('week', at)).toEqual({
      start: '2026-11-23',
      resetsAt: new Date('2026-11-30T00:00:00Z'),
    });
    const sunday = Date.UTC(2026, 10, 29, 12);
    expect(keyBudgetPeriod('week', sunday).start).toBe('2026-11-23');
    const monday = Date.UTC(2026, 10, 30, 0);
    expect(keyBudgetPeriod('week', monday)).toEqual({
      start: '2026-11-30',
      resetsAt: new Date('2026-12-07T00:00:00Z'),
    });
  });

  it('a month runs from the first to the first, across a year end', () => {
    expect(keyBudgetPeriod('month', Date.UTC(2026, 11, 31, 12))).toEqual({
      start: '2026-12-01',
      resetsAt: new Date('2027-01-01T00:00:00Z'),
    });
  });
});

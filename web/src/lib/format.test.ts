import { describe, expect, it } from 'vitest';
import { abbreviate, change, duration, percent, relativeTime } from './format';

describe('abbreviate', () => {
  it('abbreviates thousands and millions', () => {
    expect(abbreviate(999)).toBe('999');
    expect(abbreviate(1_000)).toBe('1K');
    expect(abbreviate(1_250)).toBe('1.3K');
    expect(abbreviate(2_500_000)).toBe('2.5M');
    expect(abbreviate(100_000)).toBe('100K');
    expect(abbreviate(0)).toBe('0');
    expect(abbreviate(2.5)).toBe('2.5');
    expect(abbreviate(3_000_000_000)).toBe('3B');
  });
});

describe('relativeTime', () => {
  const now = new Date('2026-01-10T12:00:00Z');
  it('says how long ago', () => {
    expect(relativeTime('2026-01-10T11:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-01-10T11:57:00Z', now)).toBe('3 min ago');
    expect(relativeTime('2026-01-10T10:00:00Z', now)).toBe('2 h ago');
    expect(relativeTime('2026-01-09T11:00:00Z', now)).toBe('1 day ago');
    expect(relativeTime('2026-01-05T12:00:00Z', now)).toBe('5 days ago');
  });
  it('shows a dash for a bad date', () => {
    expect(relativeTime('nonsense', now)).toBe('—');
  });
});

describe('ratios', () => {
  it('formats percentages, durations and changes', () => {
    expect(percent(0.9871)).toBe('98.7%');
    expect(percent(1)).toBe('100%');
    expect(percent(null)).toBe('—');
    expect(duration(12.4)).toBe('12 ms');
    expect(duration(1530)).toBe('1.53 s');
    expect(change(150, 100)).toBeCloseTo(0.5);
    expect(change(5, 0)).toBeNull();
  });
});

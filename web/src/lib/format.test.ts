import { describe, expect, it } from 'vitest';
import { abbreviate } from './format';

describe('abbreviate', () => {
  it('abbreviates thousands and millions', () => {
    expect(abbreviate(999)).toBe('999');
    expect(abbreviate(1_000)).toBe('1K');
    expect(abbreviate(1_250)).toBe('1.3K');
    expect(abbreviate(2_500_000)).toBe('2.5M');
    expect(abbreviate(100_000)).toBe('100K');
  });
});

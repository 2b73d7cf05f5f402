import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from './ids';

describe('random ids', () => {
  it('have the asked length and only base62 characters, across many pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const id = randomBase62(24);
      expect(id).toMatch(/^[A-Za-z0-9]{24}$/);
      seen.add(id);
    }
    // 5,000 ids of 24 characters use ~30 pools of 4 KB; a byte used twice would show as repeats.
    expect(seen.size).toBe(5_000);
    expect(newId('req')).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(randomBase62(29, 'chatcmpl-')).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);
    // Longer than the scratch buffer: a buffer of its own.
    expect(randomBase62(300, 'x_')).toMatch(/^x_[A-Za-z0-9]{300}$/);
  });

  it('every character is about equally likely (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(620_000);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 10,000 each; a modulo bias (bytes 248-255 kept) would make 8 characters a quarter likelier (~12,000).
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });
});

import { maskKey } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, maskPresentedKey, parseKey, SECRET_LENGTH } from './generate';

describe('generateKey', () => {
  it('produces sk_live_/sk_test_ keys with a 32-character base62 secret', () => {
    const live = generateKey('live');
    const test = generateKey('test');
    expect(live.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(test.key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(live.last4).toBe(live.key.slice(-4));
  });

  it('carries at least 128 bits of entropy', () => {
    expect(SECRET_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(128);
  });

  it('never repeats and uses the whole alphabet evenly', () => {
    const counts = new Map<string, number>();
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const { key } = generateKey('test');
      seen.add(key);
      for (const ch of key.slice(8)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(seen.size).toBe(2_000);
    expect(counts.size).toBe(62);
    const expected = (2_000 * 32) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.25);
  });

  it('stores a SHA-256 hash, never the key', () => {
    const g = generateKey('live');
    expect(g.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(g.hash).toBe(hashKey(g.key));
    expect(g.hash).not.toContain(g.key.slice(8));
  });
});

describe('parseKey', () => {
  it('accepts only well-formed keys', () => {
    expect(parseKey(generateKey('live').key)).toEqual({ kind: 'live' });
    expect(parseKey(generateKey('test').key)).toEqual({ kind: 'test' });
    expect(parseKey('sk_live_short')).toBeNull();
    expect(parseKey(`sk_prod_${'a'.repeat(32)}`)).toBeNull();
    expect(parseKey(`sk_live_${'a'.repeat(31)}!`)).toBeNull();
    expect(parseKey(`sk_live_${'a'.repeat(33)}`)).toBeNull();
  });
});

describe('masking', () => {
  it('shows the prefix and the last four characters', () => {
    expect(maskKey('live', 'a1b2')).toBe('sk_live_…a1b2');
    const g = generateKey('test');
    expect(maskPresentedKey(g.key)).toBe(`sk_test_…${g.last4}`);
  });

  it('never echoes a presented secret', () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz123456';
    const masked = maskPresentedKey(secret);
    expect(masked).toBe('…3456');
    expect(maskPresentedKey('short')).toBe('***');
    expect(maskPresentedKey('sk_live_abc')).toBe('sk_live_***');
  });
});

import { describe, expect, it } from 'vitest';
import { scrubDetails } from './record';

describe('scrubDetails', () => {
  it('drops secret-looking fields at any depth, keeps settings (a token budget is not a token)', () => {
    expect(
      scrubDetails({
        name: 'svc',
        key: 'sk_test_x',
        apiKey: 'sk_live_y',
        key_hash: 'abc',
        keyHash: 'abc',
        password: 'p',
        sessionToken: 't',
        nested: { secret: 's', clientSecret: 's', last4: 'ab12' },
        tokenBudget: { tokens: 5000, period: 'day' },
        changes: { name: { before: 'a', after: 'b' } },
        replacementId: 'key_1',
      }),
    ).toEqual({
      name: 'svc',
      nested: { last4: 'ab12' },
      tokenBudget: { tokens: 5000, period: 'day' },
      changes: { name: { before: 'a', after: 'b' } },
      replacementId: 'key_1',
    });
  });

  it('bounds strings, arrays and depth, and removes NUL (Postgres refuses it in text and jsonb)', () => {
    const out = scrubDetails({
      s: `a\u0000b${'x'.repeat(1000)}`,
      list: Array(500).fill(1),
      deep: { a: { b: { c: { d: 1 } } } },
    }) as {
      s: string;
      list: number[];
      deep: unknown;
    };
    expect(out.s.startsWith('abx')).toBe(true);
    expect(out.s).toHaveLength(512);
    expect(out.list).toHaveLength(100);
    expect(out.deep).toEqual({ a: { b: { c: null } } });
  });
});

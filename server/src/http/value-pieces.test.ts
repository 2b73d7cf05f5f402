import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillPiece, type Piece, splitValue } from './value-pieces';

/** What the event loop gets: the shell and each piece through a structured clone, filled in order. */
function rebuilt(value: unknown, limit: number): { value: unknown; pieces: Piece[] } {
  const { shell, pieces } = splitValue(structuredClone(value), limit);
  const root = structuredClone(shell);
  for (const piece of pieces) fillPiece(root, structuredClone(piece));
  return { value: root, pieces };
}

/** Values in a JSON value, itself included. */
function valuesIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  return 1 + Object.values(value).reduce<number>((sum, v) => sum + valuesIn(v), 0);
}

describe('a parsed body sent back in pieces', () => {
  it('is rebuilt equal, keys in their order, for any JSON value and piece size', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 40 }), (value, limit) => {
        const body = { body: value };
        const { value: back } = rebuilt(body, limit);
        expect(back).toEqual(body);
        expect(JSON.stringify(back)).toBe(JSON.stringify(body));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('holds no more values a piece than the limit, besides the shells of containers too large for one', () => {
    const body = {
      model: 'm',
      messages: Array.from({ length: 3_000 }, (_, i) => ({ role: 'user', content: `m${i}` })),
      tools: [
        {
          parameters: {
            properties: Object.fromEntries(
              Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
            ),
          },
        },
      ],
    };
    const { value, pieces } = rebuilt(body, 1_000);
    expect(value).toEqual(body);
    expect(pieces.length).toBeGreaterThan(20);
    for (const piece of pieces) {
      const values = piece.entries.reduce((sum, [, v]) => sum + valuesIn(v), 0);
      expect(values).toBeLessThanOrEqual(1_000);
    }
    // A small body goes whole.
    expect(splitValue({ a: [1, 2, 3] }, 1_000).pieces).toEqual([]);
  });

  it('keeps a `__proto__` key an own property, never the prototype', () => {
    const body = JSON.parse(
      `{"list":[${Array.from({ length: 50 }, () => '{"__proto__":{"polluted":true}}').join(',')}]}`,
    );
    const { value } = rebuilt(body, 10);
    const first = (value as { list: Record<string, unknown>[] }).list[0] as Record<string, unknown>;
    expect(Object.hasOwn(first, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

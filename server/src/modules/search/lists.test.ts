import { describe, expect, it } from 'vitest';
import { B, K1, W_BODY, W_TITLE } from './bm25';
import { encodeBlock, type Postings } from './codec';
import { type ListRow, sumShares } from './lists';

/** Postings of one term on the given ordinals, with frequencies and lengths derived from the ordinal. */
function postings(ords: number[], salt: number): Postings {
  return {
    ord: ords,
    tt: ords.map((o) => (o + salt) % 3),
    tb: ords.map((o) => 1 + ((o * 7 + salt) % 11)),
    tl: ords.map((o) => 2 + (o % 9)),
    bl: ords.map((o) => 20 + ((o * 13) % 200)),
    pos: null,
  };
}

/** One term's list as the statement returns it: blocks of at most 128 postings. */
function rows(p: Postings): ListRow[] {
  const out: ListRow[] = [];
  for (let start = 0; start < p.ord.length; start += 128) {
    const indexes = Array.from({ length: Math.min(128, p.ord.length - start) }, (_, k) => start + k);
    out.push({ i: 1, n: indexes.length, data: encodeBlock(p, indexes), next_max: null, rt: null, rb: null });
  }
  return out;
}

const plan = { avgTitle: 5, avgBody: 100 };
const coefs = [1.7, 0.4, 2.9];
const bounds = [0.3, 0, 0.05];

/** The same sums, one posting at a time, by ordinal. */
function naive(lists: Postings[]): Map<number, { upper: number; lower: number }> {
  const out = new Map<number, { upper: number; lower: number }>();
  lists.forEach((p, t) => {
    p.ord.forEach((o, k) => {
      const tfn =
        (W_TITLE * (p.tt[k] as number)) / (1 - B + (B * (p.tl[k] as number)) / plan.avgTitle) +
        (W_BODY * (p.tb[k] as number)) / (1 - B + (B * (p.bl[k] as number)) / plan.avgBody);
      const share = (coefs[t] as number) * ((tfn * (K1 + 1)) / (K1 + tfn));
      const sum = out.get(o) ?? { upper: 0, lower: 0 };
      out.set(o, { upper: sum.upper + share - (bounds[t] as number), lower: sum.lower + share });
    });
  });
  return out;
}

function byOrdinal(sums: ReturnType<typeof sumShares>) {
  return new Map([...sums.ords].map((o, k) => [o, { upper: sums.uppers[k], lower: sums.lowers[k] }]));
}

describe('a round summing the shares of the blocks it read', () => {
  const lists = [
    postings([3, 4, 9, 200, 201, 777, 1500, 1501, 1502], 1),
    postings(
      Array.from({ length: 300 }, (_, k) => k * 5),
      2,
    ),
    postings([4, 777, 1502, 1499], 3),
  ];
  const byTerm = lists.map(rows);

  it('gives every candidate its seen shares, and those less the seen terms’ bounds, exactly once', () => {
    const expected = naive(lists);
    const dense = byOrdinal(sumShares(byTerm, coefs, bounds, plan, 1502));
    expect(dense.size).toBe(expected.size);
    for (const [o, sum] of expected) {
      expect(dense.get(o)?.upper, String(o)).toBeCloseTo(sum.upper, 12);
      expect(dense.get(o)?.lower, String(o)).toBeCloseTo(sum.lower, 12);
    }
  });

  it('sums alike by ordinal array and by Map (ordinals too sparse), and leaves nothing behind between rounds', () => {
    const dense = byOrdinal(sumShares(byTerm, coefs, bounds, plan, 1502));
    const sparse = byOrdinal(sumShares(byTerm, coefs, bounds, plan, 1e9));
    expect(sparse).toEqual(dense);
    // A second round over other lists starts from zero.
    const again = byOrdinal(sumShares([rows(lists[2] as Postings)], [coefs[2] as number], [0], plan, 1502));
    const alone = naive([lists[2] as Postings]);
    expect(again.size).toBe(4);
    expect(again.get(777)?.lower).toBeCloseTo(
      (alone.get(777)?.lower ?? 0) * ((coefs[2] as number) / (coefs[0] as number)),
      12,
    );
  });

  it('refuses a block whose ordinals reach past the collection rather than summing garbage', () => {
    expect(() => sumShares(byTerm, coefs, bounds, plan, 100)).toThrow(/ordinal/);
  });
});

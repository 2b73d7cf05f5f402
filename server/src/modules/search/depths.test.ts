import { describe, expect, it } from 'vitest';
import { FULL_DEPTH, nextDepths, readCost } from './depths';

const terms = [{ df: 50_000 }, { df: 20_000 }, { df: 3_000 }, { df: 800 }];
const NONE = Number.NEGATIVE_INFINITY;

describe('nextDepths', () => {
  it('reads whole the lists MaxScore calls essential, the others summing under half of theta', () => {
    // Bound 1 stays under theta/2 = 2; adding 2 would not: only term 0 is non-essential.
    const next = nextDepths(terms, [512, 512, 512, 512], [1, 2, 3, 5], 4, 100_000, 32_768);
    expect(next).toEqual([512, FULL_DEPTH, FULL_DEPTH, FULL_DEPTH]);
    expect(readCost(terms, next ?? [])).toBe(512 + 20_000 + 3_000 + 800);
  });

  it('lets the non-essential bounds sum up to theta when half of it costs too much to read', () => {
    // Half: terms 1-3 whole (23,800 postings) is past 10,000; all of theta: terms 2-3 whole.
    const next = nextDepths(terms, [512, 512, 512, 512], [1, 2, 3, 5], 4, 10_000, 32_768);
    expect(next).toEqual([512, 512, FULL_DEPTH, FULL_DEPTH]);
  });

  it('may read more postings to make lists whole than to grow them (maxWholeRead)', () => {
    const next = nextDepths(terms, [512, 512, 512, 512], [1, 2, 3, 5], 4, 10_000, 32_768, 30_000);
    expect(next).toEqual([512, FULL_DEPTH, FULL_DEPTH, FULL_DEPTH]);
  });

  it('does not count exhausted lists, whose bound is 0, among those to read further', () => {
    const next = nextDepths(terms, [512, 512, 512, 1_000], [1, 2, 3, 0], 7, 100_000, 32_768);
    expect(next).toEqual([512, 512, FULL_DEPTH, 1_000]);
  });

  it('grows every open list fourfold when no theta is known or whole lists cost too much', () => {
    expect(nextDepths(terms, [512, 512, 512, 1_000], [1, 2, 3, 0], NONE, 100_000, 32_768)).toEqual([
      2_048, 2_048, 2_048, 1_000,
    ]);
    // Essential terms 0-2 would read 73,000 postings, past a budget of 20,000.
    expect(nextDepths(terms, [512, 512, 512, 512], [3, 2, 1, 0.5], 0.6, 20_000, 32_768)).toEqual([
      2_048, 2_048, 2_048, 2_048,
    ]);
  });

  it('gives up when growing passes the depth or read budget', () => {
    expect(nextDepths(terms, [16_384, 512, 512, 512], [1, 1, 1, 1], NONE, 1e9, 32_768)).toBeUndefined();
    expect(
      nextDepths(terms, [4_096, 4_096, 4_096, 4_096], [1, 1, 1, 1], NONE, 30_000, 32_768),
    ).toBeUndefined();
  });

  it('grows the non-essential lists once the essential ones are whole', () => {
    const depths = [512, 512, FULL_DEPTH, FULL_DEPTH];
    expect(nextDepths(terms, depths, [1, 2, 0, 0], 7, 100_000, 32_768)).toEqual([
      2_048,
      2_048,
      FULL_DEPTH,
      FULL_DEPTH,
    ]);
  });
});

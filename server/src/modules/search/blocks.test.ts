import { describe, expect, it } from 'vitest';
import { dueLevel, MERGE_FANOUT, mergeLevel } from './blocks';
import {
  BLOCK_SIZE,
  decodeBlock,
  decodePositions,
  encodeBlock,
  encodePositions,
  float4Up,
  impactOf,
  type Postings,
  runBlocks,
} from './codec';

function postings(n: number, seed = 1): Postings {
  const p: Postings = { ord: [], tt: [], tb: [], tl: [], bl: [], pos: [] };
  let x = seed;
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % m;
  };
  const used = new Set<number>();
  while (p.ord.length < n) {
    // Ordinals from small to past 2^32, so that varints of every length are exercised.
    const ord = next(4) === 0 ? 2 ** 33 + next(1_000_000) : next(200_000);
    if (used.has(ord)) continue;
    used.add(ord);
    p.ord.push(ord);
    p.tt.push(next(3));
    p.tb.push(next(4) === 0 ? 300 + next(10_000) : next(20));
    p.tl.push(next(12));
    p.bl.push(next(5_000));
    // 1 to 256 ascending positions up to 16,383 (what a tsvector keeps).
    const count = next(8) === 0 ? 1 + next(256) : 1 + next(3);
    const positions = new Set<number>();
    while (positions.size < count) positions.add(1 + next(16_383));
    p.pos?.push([...positions].sort((x, y) => x - y));
  }
  return p;
}

const refs = { title: 6.5, body: 80 };

describe('search blocks', () => {
  it('decodes what it encodes, by ascending ordinal', () => {
    const p = postings(BLOCK_SIZE);
    const all = p.ord.map((_, i) => i);
    const block = decodeBlock(encodeBlock(p, all), all.length);
    const sorted = [...all].sort((x, y) => (p.ord[x] as number) - (p.ord[y] as number));
    expect(Array.from(block.ord)).toEqual(sorted.map((i) => p.ord[i]));
    expect(Array.from(block.tt)).toEqual(sorted.map((i) => p.tt[i]));
    expect(Array.from(block.tb)).toEqual(sorted.map((i) => p.tb[i]));
    expect(Array.from(block.tl)).toEqual(sorted.map((i) => p.tl[i]));
    expect(Array.from(block.bl)).toEqual(sorted.map((i) => p.bl[i]));
  });

  it('decodes the positions in the same order as the postings', () => {
    const p = postings(BLOCK_SIZE, 7);
    const all = p.ord.map((_, i) => i);
    const data = encodePositions(p, all);
    if (!data) throw new Error('positions expected');
    const decoded = decodePositions(data, all.length);
    const sorted = [...all].sort((x, y) => (p.ord[x] as number) - (p.ord[y] as number));
    const lists = sorted.map((_, k) =>
      Array.from(decoded.flat.subarray(decoded.start[k] as number, decoded.start[k + 1] as number)),
    );
    expect(lists).toEqual(sorted.map((i) => p.pos?.[i]));
    expect(() => decodePositions(data.slice(0, data.length - 1), all.length)).toThrow(/truncated/);
    expect(() => decodePositions(data, all.length - 1)).toThrow(/longer/);
    expect(encodePositions({ ...p, pos: null }, all)).toBeNull();
  });

  it('refuses truncated or overlong data', () => {
    const p = postings(10);
    const data = encodeBlock(
      p,
      p.ord.map((_, i) => i),
    );
    expect(() => decodeBlock(data.slice(0, data.length - 1), 10)).toThrow(/truncated/);
    expect(() => decodeBlock(data, 9)).toThrow(/longer/);
  });

  it('cuts a run by impact: every block is at most BLOCK_SIZE, its max bounds it and every later block', () => {
    const p = postings(1_000, 7);
    const blocks = runBlocks('t', p, refs);
    expect(blocks.map((b) => b.n)).toEqual([128, 128, 128, 128, 128, 128, 128, 104]);
    let previousMin = Number.POSITIVE_INFINITY;
    const seen: number[] = [];
    for (const b of blocks) {
      const d = decodeBlock(b.data, b.n);
      const impacts = Array.from(d.ord, (_, i) =>
        impactOf(d.tt[i] as number, d.tb[i] as number, d.tl[i] as number, d.bl[i] as number, refs),
      );
      expect(Math.max(...impacts)).toBeLessThanOrEqual(b.maxImpact);
      expect(Math.max(...impacts)).toBeLessThanOrEqual(previousMin);
      previousMin = Math.min(...impacts);
      seen.push(...d.ord);
    }
    expect(seen.sort((x, y) => x - y)).toEqual([...p.ord].sort((x, y) => x - y));
  });

  it('rounds maxima up to float4', () => {
    for (const x of [0.1, 1 / 3, 5.719046032274957, 123456.789, 3]) {
      const y = float4Up(x);
      expect(y).toBeGreaterThanOrEqual(x);
      expect(Math.fround(y)).toBe(y);
      expect((y - x) / x).toBeLessThan(1.2e-7);
    }
  });

  it('merges level L every FANOUT^(L+1) batches', () => {
    const f = MERGE_FANOUT;
    expect([1, f - 1, f, 2 * f, f * f, f * f * f, 3 * f * f].map(mergeLevel)).toEqual([
      -1, -1, 0, 0, 1, 2, 1,
    ]);
  });

  it('finds the highest merge due since the last one, however many batches a background merger missed', () => {
    const f = MERGE_FANOUT;
    // One batch at a time: the same levels as the write-time schedule.
    for (let gen = 1; gen <= 3 * f * f; gen++)
      expect(dueLevel(gen - 1, gen), String(gen)).toBe(mergeLevel(gen));
    expect(dueLevel(f, 2 * f - 1)).toBe(-1);
    expect(dueLevel(f - 1, f + 3)).toBe(0);
    expect(dueLevel(f + 1, f * f + 2)).toBe(1);
    expect(dueLevel(0, f * f * f)).toBe(2);
    expect(dueLevel(f * f, f * f)).toBe(-1);
  });
});

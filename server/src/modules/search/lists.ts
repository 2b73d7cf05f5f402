import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { MAX_LEVEL } from './blocks';
import { B, idf, K1, W_BODY, W_TITLE } from './bm25';
import { byteaOf, decodeBlock, VarintReader } from './codec';
import { FULL_DEPTH } from './depths';
import type { RankQuery } from './query';
import { queryRows, textArrayLiteral } from './sql';

/**
 * One top-k round's reading of the impact-ordered lists (topk.ts): each scored term's best blocks
 * down to a depth, decoded into every candidate's exact seen shares, with a bound on what each
 * term's unread postings may still add; and the choice of the candidates to verify.
 */

/** Margin for the 8-digit rounding of scores and float summation order. */
export const EPSILON = 1e-6;

export interface ListRow {
  i: number;
  /** Postings in the block; on the collection row (i = 0), its highest ordinal (`next_ord`). */
  n: number;
  data: unknown;
  next_max: number | null;
  rt: number | null;
  rb: number | null;
}

const depthsLiteral = (depths: number[]) =>
  `{${depths.map((d) => String(Math.min(d, FULL_DEPTH))).join(',')}}`;
const sat = (x: number) => (x * (K1 + 1)) / (K1 + x);

/** What one round read from the lists: candidates with their upper bounds, and each term's bound. */
export interface ListsOutcome {
  /** Candidate ordinals and upper bounds, in the same order. */
  ords: Float64Array;
  uppers: Float64Array;
  /** The sum of each candidate's seen shares: its score if its document is live (never above it). */
  lowers: Float64Array;
  /** Per scored term, in plan order: the bound on what its unread postings add (0 once exhausted). */
  bounds: number[];
  exhausted: boolean;
}

/**
 * Reads each term's blocks in descending max_impact order over its runs until `depth` postings
 * (whole blocks; at most depth/32 + 8 blocks),
 * decodes them and sums every document's exact shares; a term's unread postings are bounded by the
 * max_impact of its first unread block times R. The references for R are read by the same
 * statement (the search runs in one repeatable-read snapshot anyway).
 */
export async function readLists(db: Db, rq: RankQuery, depths: number[]): Promise<ListsOutcome> {
  const { accountId: a, collection: c } = rq.scope;
  const { plan } = rq;
  const terms = textArrayLiteral(plan.terms.map((t) => t.term));
  // Blocks read at most per term: whole blocks until the depth, assuming at least 32 postings a
  // block on average (a level-0 run of a few documents has smaller ones); reading fewer postings
  // than the depth only loosens that round's bound.
  const blocksLiteral = `{${depths.map((d) => String(d >= FULL_DEPTH ? 1_000_000_000 : Math.ceil(d / 32) + 8)).join(',')}}`;
  const rows = await queryRows<ListRow>(
    db,
    sql`
    with t as (
      select * from unnest(${terms}::text[], ${depthsLiteral(depths)}::int[], ${blocksLiteral}::int[])
        with ordinality as t(term, depth, blocks, i)
    )
    select t.i::int as i, x.n, x.data, x.next_max::float8 as next_max, null::float8 as rt, null::float8 as rb
    from t cross join lateral (
      select y.n, y.data, y.next_max from (
        select z.n, z.data, row_number() over w as rn, sum(z.n) over w - z.n as before,
          lead(z.max_impact) over w as next_max
        from (
          -- Each level's first blocks by max_impact (index order): the first ones of all levels
          -- together are among them.
          select b.n, b.data, b.max_impact
          from generate_series(0, ${MAX_LEVEL}) l
          cross join lateral (
            select k.n, k.data, k.max_impact from search_blocks k
            where k.account_id = ${a} and k.collection = ${c} and k.term = t.term and k.level = l
            order by k.max_impact desc
            limit t.blocks + 1
          ) b
        ) z
        window w as (order by z.max_impact desc rows between unbounded preceding and current row)
      ) y
      where y.rn <= t.blocks and y.before < t.depth
    ) x
    union all
    select 0, least(next_ord, 2147483647)::int, null, null, impact_title_avg, impact_body_avg
    from search_collections where account_id = ${a} and name = ${c}`,
  );
  const refs = rows.find((r) => r.i === 0);
  // R (postings.ts); 1e6 if the collection vanished, which still bounds (sat never exceeds k1 + 1).
  const ratio =
    refs && refs.rt !== null && refs.rb !== null
      ? Math.max(1, plan.avgTitle / refs.rt, plan.avgBody / refs.rb) * (1 + EPSILON)
      : 1e6;
  const coefs = plan.terms.map((t) => t.weight * idf(plan.n, t.df));
  // The last block read of each term says whether more remain (its lead) and how much they add.
  const nextMax: (number | null)[] = plan.terms.map(() => null);
  const byTerm: ListRow[][] = plan.terms.map(() => []);
  for (const row of rows) {
    if (row.i === 0) continue;
    byTerm[row.i - 1]?.push(row);
  }
  const bounds = plan.terms.map((_, t) => {
    const list = byTerm[t] ?? [];
    const last = list[list.length - 1];
    // Rows of one term come in window order; the smallest lead is the first unread block.
    let next: number | null = last ? last.next_max : null;
    for (const r of list) if (r.next_max === null || (next !== null && r.next_max < next)) next = r.next_max;
    nextMax[t] = next;
    return next === null ? 0 : (coefs[t] ?? 0) * sat(ratio * next);
  });
  const totalBound = bounds.reduce((x, y) => x + y, 0);
  const { ords, uppers, lowers } = sumShares(
    byTerm,
    coefs,
    bounds,
    plan,
    refs?.n ?? Number.POSITIVE_INFINITY,
  );
  for (let k = 0; k < uppers.length; k++) uppers[k] = (uppers[k] as number) + totalBound;
  return { ords, uppers, lowers, bounds, exhausted: nextMax.every((m) => m === null) };
}

/**
 * Accumulators by ordinal, kept between rounds: allocating them per round (and five arrays per
 * decoded block) made the garbage collector run full collections, 10-30 ms in a paragraph's round.
 * The summing below runs without an await, so one round at a time uses them, and it leaves them zeroed.
 */
const scratch = {
  upper: new Float64Array(0),
  lower: new Float64Array(0),
  seen: new Uint8Array(0),
  touched: new Float64Array(0),
};
/** Ordinals past this are summed in a Map (a collection whose documents were replaced many times). */
const MAX_DENSE_ORD = 1 << 24;

/**
 * Every candidate's sums over the blocks read, per term in plan order: its seen shares (`lowers`:
 * its score if its document is live, never above it) and those minus the bounds of the terms it
 * was seen in (`uppers`, before every term's bound is added). Blocks are decoded as they are summed.
 */
export function sumShares(
  byTerm: ListRow[][],
  coefs: number[],
  bounds: number[],
  plan: { avgTitle: number; avgBody: number },
  lastOrd: number,
): { ords: Float64Array; uppers: Float64Array; lowers: Float64Array } {
  const { avgTitle, avgBody } = plan;
  const shareOf = (coef: number, tt: number, tb: number, tl: number, bl: number) => {
    const tfn = (W_TITLE * tt) / (1 - B + (B * tl) / avgTitle) + (W_BODY * tb) / (1 - B + (B * bl) / avgBody);
    return coef * sat(tfn);
  };
  let postings = 0;
  for (const list of byTerm) for (const row of list) postings += row.n;
  if (lastOrd > MAX_DENSE_ORD || lastOrd > 65_536 + 64 * postings) {
    const sums = new Map<number, [number, number]>();
    byTerm.forEach((list, t) => {
      for (const row of list) {
        const block = decodeBlock(byteaOf(row.data), row.n);
        for (let k = 0; k < block.n; k++) {
          const o = block.ord[k] as number;
          const share = shareOf(
            coefs[t] ?? 0,
            block.tt[k] ?? 0,
            block.tb[k] ?? 0,
            block.tl[k] ?? 0,
            block.bl[k] ?? 0,
          );
          const before = sums.get(o);
          if (before === undefined) sums.set(o, [share - (bounds[t] ?? 0), share]);
          else {
            before[0] += share - (bounds[t] ?? 0);
            before[1] += share;
          }
        }
      }
    });
    const ords = Float64Array.from(sums.keys());
    const uppers = new Float64Array(ords.length);
    const lowers = new Float64Array(ords.length);
    ords.forEach((o, k) => {
      const [up, low] = sums.get(o) ?? [0, 0];
      uppers[k] = up;
      lowers[k] = low;
    });
    return { ords, uppers, lowers };
  }
  if (scratch.seen.length < lastOrd + 1) {
    const size = Math.min(MAX_DENSE_ORD + 1, Math.max(lastOrd + 1, 2 * scratch.seen.length));
    scratch.upper = new Float64Array(size);
    scratch.lower = new Float64Array(size);
    scratch.seen = new Uint8Array(size);
  }
  if (scratch.touched.length < postings)
    scratch.touched = new Float64Array(Math.max(postings, 2 * scratch.touched.length));
  const { upper, lower, seen, touched } = scratch;
  let count = 0;
  try {
    for (let t = 0; t < byTerm.length; t++) {
      const coef = coefs[t] ?? 0;
      const bound = bounds[t] ?? 0;
      for (const row of byTerm[t] ?? []) {
        // decodeBlock's format, read in place.
        const reader = new VarintReader(byteaOf(row.data), 'block');
        let o = 0;
        for (let k = 0; k < row.n; k++) {
          o += reader.next();
          const share = shareOf(coef, reader.next(), reader.next(), reader.next(), reader.next());
          if (o > lastOrd) throw new Error('search block ordinal beyond the collection');
          if (seen[o] === 0) {
            seen[o] = 1;
            touched[count++] = o;
          }
          upper[o] = (upper[o] as number) + share - bound;
          lower[o] = (lower[o] as number) + share;
        }
        if (!reader.done) throw new Error('search block longer than its count');
      }
    }
    const ords = touched.slice(0, count);
    const uppers = new Float64Array(count);
    const lowers = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const o = ords[k] as number;
      uppers[k] = upper[o] as number;
      lowers[k] = lower[o] as number;
    }
    return { ords, uppers, lowers };
  } finally {
    for (let k = 0; k < count; k++) {
      const o = touched[k] as number;
      upper[o] = 0;
      lower[o] = 0;
      seen[o] = 0;
    }
  }
}

/** The k-th highest value (−Infinity when there are fewer). */
export function kthHighest(values: Float64Array, k: number): number {
  if (values.length < k || k < 1) return Number.NEGATIVE_INFINITY;
  const sorted = values.slice().sort();
  return sorted[sorted.length - k] as number;
}

/**
 * The `count` candidates of `ranked` (indexes into uppers/ords) with the highest upper bounds (ties by
 * ordinal), best first, and the upper bound of the next one (null when none is left out). Selects
 * the cut with a typed-array sort and orders only what passes it: a first round may rank 100,000
 * candidates to verify a few hundred.
 */
export function bestCandidates(
  ranked: number[],
  uppers: Float64Array,
  ords: Float64Array,
  count: number,
): { batch: number[]; beyond: number | null } {
  const byUpper = (x: number, y: number) =>
    (uppers[y] as number) - (uppers[x] as number) || (ords[x] as number) - (ords[y] as number);
  if (ranked.length <= count) return { batch: ranked.sort(byUpper), beyond: null };
  const values = new Float64Array(ranked.length);
  for (let k = 0; k < ranked.length; k++) values[k] = uppers[ranked[k] as number] as number;
  values.sort();
  // The (count+1)-th highest upper bound: everything above it is in, ties are ordered by ordinal.
  const beyond = values[ranked.length - 1 - count] as number;
  const top = ranked.filter((k) => (uppers[k] as number) >= beyond).sort(byUpper);
  return { batch: top.slice(0, count), beyond: uppers[top[count] as number] as number };
}

import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { byteaOf, decodeBlock, MAX_LEVEL } from './blocks';
import { FULL_DEPTH, nextDepths } from './depths';
import { filterSql } from './filter';
import type { RankedRow, RankQuery } from './query';
import { B, idf, K1, SCORE_DIGITS, scoreExpression, scoringSource, W_BODY, W_TITLE } from './rank';
import { headlineSql } from './snippet';
import { queryRows, textArrayLiteral } from './sql';

/**
 * Top-k over impact-ordered postings (Fagin's threshold algorithm with lazy verification), exact:
 * it returns the same page as scoring every match, or undefined when it could not prove that
 * within its budget (the caller then scores every match).
 *
 * One round, two statements:
 * 1. read each scored term's blocks (blocks.ts) in descending max_impact order until M postings,
 *    decoded here; a posting carries the raw frequencies and lengths, so its term's exact BM25F
 *    share s_t(d) under the current statistics is computed from it;
 * 2. bound what was not read: a term whose list was not exhausted contributes at most
 *    b_t = w_t·idf_t·sat(R·m_t), m_t the max_impact of its first unread block, sat(x) =
 *    x(k1+1)/(k1+x), R from postings.ts; an exhausted
 *    list contributes b_t = 0. A document no list reached scores at most UB = Σ b_t;
 * 3. every candidate (document some list reached) gets upper(d) = Σ_seen s_t(d) + Σ_unseen b_t;
 *    the V candidates with the highest upper bound are verified, by the second statement, on the
 *    live row of their document ordinal (a dead one has none; the
 *    full tsquery: AND, phrases, exclusion; the metadata filter; the keyset) and scored exactly
 *    with the same SQL expression as the full path, so scores and order are identical.
 *
 * The page is proven when the (offset + limit + 1)-th verified hit scores above
 * T = max(UB, highest upper bound among unverified candidates): nothing unread or unverified can
 * rank before it. Otherwise the round is repeated with more verification (when an unverified
 * candidate is what blocks) or longer lists, up to MAX_M / MAX_V.
 */
const MAX_M = 32_768;
const MAX_V = 4_096;
/**
 * Postings a round may read over all its terms: a question's many terms would otherwise grow each
 * list to MAX_M (32 × 32,768 reads); past this, full scoring narrowed by MaxScore is cheaper.
 */
const MAX_READ = 131_072;
/**
 * Postings a round may read when MaxScore reads lists whole: sequential index reads, cheaper than
 * the thousands of document visits a looser split leaves to verification, or than giving up.
 */
const MAX_WHOLE_READ = 262_144;
/** Margin for the 8-digit rounding of scores and float summation order. */
const EPSILON = 1e-6;

/**
 * Proven page, or undefined with `theta`: the best lower bound found on the (offset+limit+1)-th
 * score (a verified hit's exact score; −Infinity when none), which full scoring can prune with.
 */
export type TopKOutcome =
  | { rows: RankedRow[]; rounds: number; wholeLists: number }
  | { rows: undefined; rounds: number; theta: number };

interface ListRow {
  i: number;
  n: number;
  data: unknown;
  next_max: number | null;
  rt: number | null;
  rb: number | null;
}

interface VerifyRow {
  kind: 'h' | 'm';
  ord: string | null;
  id: string | null;
  score: number | null;
  title: string | null;
  metadata: Record<string, unknown> | null;
  headline: string | null;
  /** The second verification step's floor (meta row). */
  fb: number | null;
}

const depthsLiteral = (depths: number[]) =>
  `{${depths.map((d) => String(Math.min(d, FULL_DEPTH))).join(',')}}`;
const f8 = (value: number) => sql.raw(`${Number.isFinite(value) ? String(value) : '0'}::float8`);
const sat = (x: number) => (x * (K1 + 1)) / (K1 + x);

/** Where the rounds start: list depth m, verification budget v, first step (defaults below; tests start small). */
export interface TopKStart {
  depth?: number | undefined;
  verify?: number | undefined;
  /** Candidates verified before the first step's k-th score filters the rest of the budget. */
  firstStep?: number | undefined;
  /** Gives up after this many rounds (tests, to reach the fallback on a small collection). */
  maxRounds?: number | undefined;
}

/** What one round read from the lists: candidates with their upper bounds, and each term's bound. */
interface ListsOutcome {
  /** Candidate ordinals and upper bounds, in the same order. */
  ords: Float64Array;
  uppers: Float64Array;
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
async function readLists(db: Db, rq: RankQuery, depths: number[]): Promise<ListsOutcome> {
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
    select 0, null, null, null, impact_title_avg, impact_body_avg
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
  const blocks = byTerm.map((list) => list.map((row) => decodeBlock(byteaOf(row.data), row.n)));
  // Per document: the sum of its seen shares minus the bounds of the terms it was seen in, summed
  // in an array indexed by ordinal (a paragraph's round reads up to MAX_WHOLE_READ postings, where
  // a Map cost more than the statement), or a Map when ordinals are too sparse for that.
  let maxOrd = 0;
  let postings = 0;
  for (const list of blocks)
    for (const block of list) {
      postings += block.n;
      if (block.n > 0) maxOrd = Math.max(maxOrd, block.ord[block.n - 1] as number);
    }
  const dense = maxOrd < 65_536 + 64 * postings;
  const sums = dense ? new Float64Array(maxOrd + 1) : undefined;
  const seenAt = dense ? new Uint8Array(maxOrd + 1) : undefined;
  const sparse = dense ? undefined : new Map<number, number>();
  const touched: number[] = [];
  const titleNorm = (len: number) => 1 - B + (B * len) / plan.avgTitle;
  const bodyNorm = (len: number) => 1 - B + (B * len) / plan.avgBody;
  for (let t = 0; t < blocks.length; t++) {
    const coef = coefs[t] ?? 0;
    const bound = bounds[t] ?? 0;
    for (const block of blocks[t] ?? []) {
      for (let k = 0; k < block.n; k++) {
        const tfn =
          (W_TITLE * (block.tt[k] as number)) / titleNorm(block.tl[k] as number) +
          (W_BODY * (block.tb[k] as number)) / bodyNorm(block.bl[k] as number);
        const ord = block.ord[k] as number;
        const share = coef * sat(tfn) - bound;
        if (sums && seenAt) {
          if (seenAt[ord] === 0) {
            seenAt[ord] = 1;
            touched.push(ord);
          }
          sums[ord] = (sums[ord] as number) + share;
        } else if (sparse) {
          const before = sparse.get(ord);
          if (before === undefined) touched.push(ord);
          sparse.set(ord, (before ?? 0) + share);
        }
      }
    }
  }
  const ords = new Float64Array(touched);
  const uppers = new Float64Array(touched.length);
  for (let k = 0; k < touched.length; k++) {
    const ord = touched[k] as number;
    uppers[k] = (sums ? (sums[ord] as number) : (sparse?.get(ord) ?? 0)) + totalBound;
  }
  return { ords, uppers, bounds, exhausted: nextMax.every((m) => m === null) };
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

export async function rankTopK(db: Db, rq: RankQuery, start: TopKStart = {}): Promise<TopKOutcome> {
  const { accountId: a, collection: c } = rq.scope;
  const { plan, after } = rq;
  const need = rq.offset + rq.limit + 1;
  const tsquery = sql`${plan.tsquery}::tsquery`;
  // A candidate is a live document in some scored term's list (an ordinal is never reused): when
  // the query is just the OR of those terms it matches, and its tsvector need not be read again.
  const operators = plan.tsquery.replace(/'(?:[^']|'')*'/g, '');
  const plainOr = plan.matchAnyOf !== undefined && !/[!&<]/.test(operators);
  const matches = plainOr ? sql`true` : sql`d.tsv @@ ${tsquery}`;
  const keyset =
    after?.score === undefined
      ? sql`true`
      : sql`(s.score < ${after.score}::float8 or (s.score = ${after.score}::float8 and s.id > ${after.id}))`;

  // Several terms need deeper lists before the sum of their bounds drops below the k-th score.
  const several = plan.terms.length > 1;
  const depth = several ? Math.min(2048, Math.max(512, Math.floor(4096 / plan.terms.length))) : 256;
  let depths = plan.terms.map(() => start.depth ?? Math.max(depth, 16 * need));
  const budget = several ? Math.min(512, Math.max(128, Math.floor(1024 / plan.terms.length))) : 64;
  let v = start.verify ?? Math.max(budget, 6 * need);
  // A lower bound on the (offset+limit+1)-th score, from the previous round's verified hits:
  // candidates whose upper bound is below it need no verification.
  let theta = Number.NEGATIVE_INFINITY;
  let cached: { key: string; lists: ListsOutcome } | undefined;
  // Candidates an earlier round verified are not visited again: their exact scores do not change
  // between rounds (one snapshot). Only the best `need` of them can still be on the page; those
  // are carried into the next round's statement as known hits, the others are just skipped.
  const verifiedOrds = new Set<number>();
  let carried: { ord: number; id: string; score: number }[] = [];
  for (let rounds = 1; ; rounds++) {
    const floor = Number.isFinite(theta) ? theta - EPSILON * Math.max(1, Math.abs(theta)) : -1e300;
    // A round that only verifies more reads the same blocks in the same snapshot: decoded once.
    const key = depths.join(',');
    const lists = cached?.key === key ? cached.lists : await readLists(db, rq, depths);
    cached = { key, lists };
    const ub = lists.bounds.reduce((x, y) => x + y, 0);
    // Candidates that can still need verification, best upper bound first (ties by ordinal).
    let belowFloor = Number.NEGATIVE_INFINITY;
    const ranked: number[] = [];
    const skip = verifiedOrds.size > 0;
    for (let k = 0; k < lists.ords.length; k++) {
      const upper = lists.uppers[k] as number;
      if (skip && verifiedOrds.has(lists.ords[k] as number)) continue;
      if (upper >= floor) ranked.push(k);
      else if (upper > belowFloor) belowFloor = upper;
    }
    const { batch, beyond } = bestCandidates(ranked, lists.uppers, lists.ords, v);
    // Verification in two steps within the statement: the va best candidates by upper bound, then
    // the rest of the budget only where the upper bound reaches the k-th score found in the first.
    const va = Math.min(v, start.firstStep ?? Math.max(128, 4 * need));
    const ordsLiteral = `{${batch.map((k) => String(lists.ords[k])).join(',')}}`;
    const knownOrds = `{${carried.map((h) => String(h.ord)).join(',')}}`;
    const knownIds = textArrayLiteral(carried.map((h) => h.id));
    const knownScores = `{${carried.map((h) => String(h.score)).join(',')}}`;
    const uppersLiteral = `{${batch.map((k) => String(lists.uppers[k])).join(',')}}`;
    const verified = (where: SQL) => sql`
      select m.ord, m.id, round((${scoreExpression(plan)})::numeric, ${sql.raw(String(SCORE_DIGITS))})::float8 as score
      from (
        select x.ord, d.id, d.tf, d.tn, d.bn
        from ranked x
        cross join lateral ${scoringSource(
          plan,
          sql`d.account_id = ${a} and d.collection = ${c} and d.ord = x.ord and ${matches} and ${filterSql(rq.filter)}`,
        )}
        where ${where}
        offset 0
      ) m`;
    const rows = await queryRows<VerifyRow>(
      db,
      sql`
      with ranked as (
        select * from unnest(${ordsLiteral}::bigint[], ${uppersLiteral}::float8[]) with ordinality as r(ord, upper, rn)
      ),
      scored_a as (
        ${verified(sql`x.rn <= ${va}`)}
        union all
        select * from unnest(${knownOrds}::bigint[], ${knownIds}::text[], ${knownScores}::float8[]) k(ord, id, score)
      ),
      floor_b as (
        select greatest(${f8(floor)}, th - ${f8(EPSILON)} * greatest(1::float8, abs(th))) as fb
        from (select coalesce((
          select s.score from scored_a s where ${keyset} order by s.score desc, s.id offset ${need - 1} limit 1
        ), -1e300::float8) as th) t
      ),
      scored_b as (${verified(sql`x.rn > ${va} and x.upper >= (select fb from floor_b)`)}),
      scored as (select * from scored_a union all select * from scored_b),
      hits as materialized (
        select s.ord, s.id, s.score, row_number() over (order by s.score desc, s.id) as rn
        from scored s where ${keyset}
        order by s.score desc, s.id
        limit ${need}
      )
      -- Every hit's ord and score (the next round's known hits); the page's rows with their text.
      select 'h' as kind, h.ord::text as ord, h.id, h.score,
        case when h.rn > ${rq.offset} then d.title end as title,
        case when h.rn > ${rq.offset} then d.metadata end as metadata,
        case when h.rn > ${rq.offset} then
          ${headlineSql(sql`${plan.language}::regconfig`, sql`${plan.highlight ?? plan.tsquery}::tsquery`)}
        end as headline,
        null::float8 as fb
      from hits h
      cross join lateral (
        select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = h.id
      ) d
      union all
      select 'm', null, null, null, null, null, null, (select fb from floor_b)`,
    );
    const fb = rows.find((r) => r.kind === 'm')?.fb ?? floor;
    // Candidates left unverified: past the budget, past the first step under its floor, under the floor.
    let nextUpper: number | null = null;
    const consider = (u: number | null) => {
      if (u !== null && Number.isFinite(u) && (nextUpper === null || u > nextUpper)) nextUpper = u;
    };
    consider(beyond);
    consider(belowFloor);
    for (let r = 0; r < batch.length; r++) {
      const upper = lists.uppers[batch[r] as number] as number;
      if (r < va || upper >= fb) {
        verifiedOrds.add(lists.ords[batch[r] as number] as number);
      } else consider(upper);
    }
    const all = rows
      .filter((r) => r.kind === 'h')
      .sort((x, y) => (y.score ?? 0) - (x.score ?? 0) || ((x.id ?? '') < (y.id ?? '') ? -1 : 1));
    carried = all.map((h) => ({ ord: Number(h.ord), id: h.id ?? '', score: h.score ?? 0 }));
    const hits = all.slice(rq.offset);
    const threshold = Math.max(ub, nextUpper ?? 0);
    const last = hits[rq.limit];
    // hits hold the rows after the offset: the (offset+limit+1)-th hit overall is hits[limit].
    const kth = last?.score ?? null;
    const margin = (x: number) => x + EPSILON * Math.max(1, Math.abs(x));
    if (kth !== null && kth > margin(threshold)) {
      return {
        rounds,
        wholeLists: depths.filter((d) => d >= FULL_DEPTH).length,
        rows: hits.map((h) => ({
          id: h.id ?? '',
          score: h.score ?? 0,
          title: h.title ?? '',
          metadata: h.metadata ?? {},
          headline: h.headline ?? '',
        })),
      };
    }
    if (kth !== null) theta = Math.max(theta, kth);
    // Candidates whose upper bound reaches the current (offset+limit+1)-th score.
    let needed = 0;
    if (kth !== null) for (const u of lists.uppers) if (u >= kth) needed++;
    // What keeps the page from being proven (both may): an unverified candidate that could rank
    // before or tie with the k-th hit, or the bound on everything unread.
    const unverifiedBlock = nextUpper !== null && (kth === null || margin(nextUpper) >= kth);
    const boundBlocks = kth === null ? nextUpper === null : margin(ub) >= kth;
    // Whole lists only where any scored term is a match (ranked OR): a document found in them is
    // then a hit, whereas a phrase or a required word still fails on most of them (depths.ts).
    const known = plan.matchAnyOf ? theta : Number.NEGATIVE_INFINITY;
    const next = nextDepths(plan.terms, depths, lists.bounds, known, MAX_READ, MAX_M, MAX_WHOLE_READ);
    // Lists read whole also tighten every candidate's upper bound, which is what helps when more
    // candidates reach the k-th score than verification may visit.
    const wholeHelps =
      unverifiedBlock &&
      kth !== null &&
      needed * 1.25 + 16 > MAX_V &&
      next?.some((d, i) => d === FULL_DEPTH && depths[i] !== FULL_DEPTH);
    if (boundBlocks || wholeHelps) {
      // Reading deeper lowers the bounds; nothing else can.
      if (lists.exhausted || !next) return { rows: undefined, rounds, theta };
      depths = next;
      // Deeper (whole) lists tighten every upper bound: this round's count of candidates to verify
      // says little about the next one's, so verification grows by a fixed step.
      if (unverifiedBlock && kth !== null) v = Math.max(v * 2, 1024);
    } else if (unverifiedBlock) {
      if (kth === null) {
        // Too few verified candidates match (a rare phrase, a selective filter): extrapolate the
        // pass rate, and give up at once when that needs more than the budget.
        const needs = Math.ceil((need * verifiedOrds.size * 1.5) / Math.max(all.length, 1));
        if (needs > MAX_V) return { rows: undefined, rounds, theta };
        v = Math.max(v * 2, needs);
      } else v = Math.max(v * 2, Math.ceil(needed * 1.25) + 16);
    }
    if (v > MAX_V || rounds >= (start.maxRounds ?? Number.POSITIVE_INFINITY)) {
      return { rows: undefined, rounds, theta };
    }
  }
}

/**
 * An upper estimate of how many documents match a tsquery, from its lexemes' document frequencies:
 * a lexeme matches df documents, `a & b` and `a <-> b` at most the smaller, `a | b` at most the sum,
 * `!a` at most n − (what a matches). Used to pick between scoring every match (cheap when few
 * match) and top-k. Infinity when the text cannot be read.
 */
export function estimateMatches(tsquery: string, dfs: Map<string, number>, n: number): number {
  const tokens = tsquery.match(/'(?:[^']|'')*'(?::[*A-D]+)?|<\d*->|<\d+>|[&|!()]/g);
  if (!tokens) return Number.POSITIVE_INFINITY;
  let pos = 0;
  const fail = () => {
    throw new Error('unreadable tsquery');
  };
  const atom = (): number => {
    const tok = tokens[pos++];
    if (tok === undefined) return fail();
    if (tok === '!') return Math.max(0, n - atom());
    if (tok === '(') {
      const value = or();
      if (tokens[pos++] !== ')') fail();
      return value;
    }
    if (!tok.startsWith("'")) return fail();
    const end = tok.lastIndexOf("'");
    if (tok.slice(end + 1).includes('*')) return n;
    return dfs.get(tok.slice(1, end).replaceAll("''", "'")) ?? 0;
  };
  const phrase = (): number => {
    let value = atom();
    while (tokens[pos]?.startsWith('<')) {
      pos++;
      value = Math.min(value, atom());
    }
    return value;
  };
  const and = (): number => {
    let value = phrase();
    while (tokens[pos] === '&') {
      pos++;
      value = Math.min(value, phrase());
    }
    return value;
  };
  const or = (): number => {
    let value = and();
    while (tokens[pos] === '|') {
      pos++;
      value = Math.min(n, value + and());
    }
    return value;
  };
  try {
    const value = or();
    return pos === tokens.length ? value : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

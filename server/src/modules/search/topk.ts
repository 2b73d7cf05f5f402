import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { SCORE_DIGITS } from './bm25';
import { FULL_DEPTH, nextDepths } from './depths';
import { filterSql } from './filter';
import { bestCandidates, EPSILON, kthHighest, type ListsOutcome, readLists } from './lists';
import { pageRows, type RankedRow, type RankQuery } from './query';
import { scoreExpression, scoringSource } from './rank';
import { queryRows, textArrayLiteral } from './sql';

/**
 * Top-k over impact-ordered postings (Fagin's threshold algorithm with lazy verification), exact:
 * it returns the same page as scoring every match, or undefined when it could not prove that
 * within its budget (the caller then scores every match).
 *
 * One round, two statements:
 * 1. read each scored term's blocks (blocks.ts) in descending max_impact order until M postings,
 *    decoded by lists.ts; a posting carries the raw frequencies and lengths, so its term's exact BM25F
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
 * candidate is what blocks) or longer lists, up to MAX_M / MAX_V. A later round verifies only
 * candidates no earlier one did. When the first lists leave far too much unread, the first round
 * verifies nothing and the next reads the MaxScore depths (depths.ts) at once.
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
/**
 * Lists of terms in at most this many documents are read whole in the first round (32 of them are
 * MAX_READ); with their dead postings, which merges drop.
 */
const WHOLE_LIST_DF = 4_096;
/**
 * Candidates to verify past which reading the essential lists whole (tightening every upper bound)
 * is preferred: a document visit costs ~25 µs, a list read whole ~1 µs a posting in sequence.
 */
const VERIFY_OVER_WHOLE = 512;

/**
 * Proven page, or undefined with `theta`: the best lower bound found on the (offset+limit+1)-th
 * score (a verified hit's exact score; −Infinity when none), which full scoring can prune with.
 */
export type TopKOutcome =
  | {
      rows: RankedRow[];
      rounds: number;
      wholeLists: number;
      /** Whether the depths came from an estimated theta (the first round verified nothing). */
      estimated: boolean;
    }
  /** `lists`: the last round's reading, for a bounded candidate set (approximate.ts). */
  | { rows: undefined; rounds: number; theta: number; lists: ListsOutcome };

interface VerifyRow {
  kind: 'h' | 'm';
  ord: string | null;
  id: string | null;
  score: number | null;
  /** The second verification step's floor (meta row). */
  fb: number | null;
}

const f8 = (value: number) => sql.raw(`${Number.isFinite(value) ? String(value) : '0'}::float8`);

/** Where the rounds start: list depth m, verification budget v, first step (defaults below; tests start small). */
export interface TopKStart {
  depth?: number | undefined;
  verify?: number | undefined;
  /** Candidates verified before the first step's k-th score filters the rest of the budget. */
  firstStep?: number | undefined;
  /** Gives up after this many rounds (tests, to reach the fallback on a small collection). */
  maxRounds?: number | undefined;
  /** Gives up after the round that ends past this time (performance.now()): the search's budget. */
  deadline?: number | undefined;
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
  // A short list is read whole in the first round: its bound is then 0 and its candidates' upper
  // bounds exact, so a rare word's page is proven by one round's verification, where a first round
  // of `depth` postings left a bound that took a second round (two more statements) to bring down.
  // Reading a few thousand postings in sequence costs less than a round trip and a verification.
  let depths = plan.terms.map(
    (t) => start.depth ?? (t.df <= WHOLE_LIST_DF ? FULL_DEPTH : Math.max(depth, 16 * need)),
  );
  const budget = several ? Math.min(512, Math.max(128, Math.floor(1024 / plan.terms.length))) : 64;
  let v = start.verify ?? Math.max(budget, 6 * need);
  // A lower bound on the (offset+limit+1)-th score, from the previous round's verified hits:
  // candidates whose upper bound is below it need no verification.
  let theta = Number.NEGATIVE_INFINITY;
  // A floor for the next round only, from an estimated theta (below): candidates under it are left
  // unverified and bound the proof like any other.
  let estimatedFloor = -1e300;
  let estimated = false;
  let cached: { key: string; lists: ListsOutcome } | undefined;
  // Candidates an earlier round verified are not visited again: their exact scores do not change
  // between rounds (one snapshot). Only the best `need` of them can still be on the page; those
  // are carried into the next round's statement as known hits, the others are just skipped.
  const verifiedOrds = new Set<number>();
  let carried: { ord: number; id: string; score: number }[] = [];
  for (let rounds = 1; ; rounds++) {
    const floor = Math.max(
      Number.isFinite(theta) ? theta - EPSILON * Math.max(1, Math.abs(theta)) : -1e300,
      estimatedFloor,
    );
    estimatedFloor = -1e300;
    // A round that only verifies more reads the same blocks in the same snapshot: decoded once.
    const key = depths.join(',');
    const lists = cached?.key === key ? cached.lists : await readLists(db, rq, depths);
    cached = { key, lists };
    const ub = lists.bounds.reduce((x, y) => x + y, 0);
    // A ranked OR whose first lists leave far more unread than the page's last score can be: no
    // verification of this round could prove the page, and it would only serve to find theta for
    // the MaxScore depths. The candidates' seen shares estimate theta instead (never above it when
    // their documents are live); the essential lists are read whole at once. The estimate only
    // chooses depths and this round's floor: the proof and the fallback use verified scores only.
    if (rounds === 1 && plan.matchAnyOf && several && rounds < (start.maxRounds ?? 2)) {
      const estimate = kthHighest(lists.lowers, need);
      const next =
        estimate > 0 && ub > 2 * estimate
          ? nextDepths(plan.terms, depths, lists.bounds, estimate, MAX_READ, MAX_M, MAX_WHOLE_READ)
          : undefined;
      if (next?.some((d, i) => d === FULL_DEPTH && depths[i] !== FULL_DEPTH)) {
        depths = next;
        estimatedFloor = estimate - EPSILON * Math.max(1, estimate);
        estimated = true;
        v = Math.max(v * 2, 1024);
        continue;
      }
    }
    // Every list read to its end: a candidate's upper bound is its score if it matches. Copies of one
    // document (a corpus holds duplicates) tie, and the page is proven only once every candidate tied
    // with its last hit is verified (an unverified one could have a smaller id): the budget covers
    // them all now, where the default one left them to a second round.
    if (lists.exhausted) {
      const kthUpper = kthHighest(lists.uppers, need);
      if (Number.isFinite(kthUpper)) {
        const tieFloor = kthUpper - 2 * EPSILON * Math.max(1, Math.abs(kthUpper));
        let reaching = 0;
        for (const u of lists.uppers) if (u >= tieFloor) reaching++;
        v = Math.max(v, Math.min(MAX_V, reaching + need));
      }
    }
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
        select s.ord, s.id, s.score
        from scored s where ${keyset}
        order by s.score desc, s.id
        limit ${need}
      )
      -- Every hit's ord and score (the next round's known hits); the page's text once it is proven.
      select 'h' as kind, h.ord::text as ord, h.id, h.score, null::float8 as fb
      from hits h
      union all
      select 'm', null, null, null, (select fb from floor_b)`,
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
        estimated,
        // Titles and snippets for the proven page only: a round that does not prove it made them for nothing.
        rows: await pageRows(
          db,
          rq,
          hits.map((h) => ({ id: h.id ?? '', score: h.score ?? 0 })),
        ),
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
    // Lists read whole also tighten every candidate's upper bound, which is cheaper than verifying
    // more than VERIFY_OVER_WHOLE candidates that reach the k-th score.
    const wholeHelps =
      unverifiedBlock &&
      kth !== null &&
      needed * 1.25 + 16 > VERIFY_OVER_WHOLE &&
      next?.some((d, i) => d === FULL_DEPTH && depths[i] !== FULL_DEPTH);
    if (boundBlocks || wholeHelps) {
      // Reading deeper lowers the bounds; nothing else can.
      if (lists.exhausted || !next) return { rows: undefined, rounds, theta, lists };
      depths = next;
      // Deeper (whole) lists tighten every upper bound: this round's count of candidates to verify
      // says little about the next one's, so verification grows by a fixed step.
      if (unverifiedBlock && kth !== null) v = Math.max(v * 2, 1024);
    } else if (unverifiedBlock) {
      if (kth === null) {
        // Too few verified candidates match (a rare phrase, a selective filter): extrapolate the
        // pass rate, and give up at once when that needs more than the budget.
        const needs = Math.ceil((need * verifiedOrds.size * 1.5) / Math.max(all.length, 1));
        if (needs > MAX_V) return { rows: undefined, rounds, theta, lists };
        v = Math.max(v * 2, needs);
      } else v = Math.max(v * 2, Math.ceil(needed * 1.25) + 16);
    }
    if (
      v > MAX_V ||
      rounds >= (start.maxRounds ?? Number.POSITIVE_INFINITY) ||
      performance.now() > (start.deadline ?? Number.POSITIVE_INFINITY)
    ) {
      return { rows: undefined, rounds, theta, lists };
    }
  }
}

import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { FULL_DEPTH, nextDepths } from './depths';
import { filterSql } from './filter';
import type { RankedRow, RankQuery } from './query';
import { B, idf, K1, SCORE_DIGITS, scoreExpression, scoringColumns, W_BODY, W_TITLE } from './rank';
import { headlineSql } from './snippet';
import { queryRows, textArrayLiteral } from './sql';

/**
 * Top-k over impact-ordered postings (Fagin's threshold algorithm with lazy verification), exact:
 * it returns the same page as scoring every match, or undefined when it could not prove that
 * within its budget (the caller then scores every match).
 *
 * One round, one statement:
 * 1. read the M highest-impact postings of every scored term (index order, `search_postings`);
 *    a posting carries the raw frequencies and lengths, so its term's exact BM25F share s_t(d)
 *    under the current statistics is computed from it;
 * 2. bound what was not read: a term whose list was not exhausted contributes at most
 *    b_t = w_t·idf_t·sat(R·impact_M), sat(x) = x(k1+1)/(k1+x), R from postings.ts; an exhausted
 *    list contributes b_t = 0. A document no list reached scores at most UB = Σ b_t;
 * 3. every candidate (document some list reached) gets upper(d) = Σ_seen s_t(d) + Σ_unseen b_t;
 *    the V candidates with the highest upper bound are verified on the document itself (the
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

interface RoundRow {
  kind: 'h' | 'm';
  id: string | null;
  score: number | null;
  title: string | null;
  metadata: Record<string, unknown> | null;
  headline: string | null;
  ub: number | null;
  next_upper: number | null;
  exhausted: boolean | null;
  /** Per scored term, in plan order: the bound on what its unread postings add (0 once exhausted). */
  bounds: number[] | null;
  /** Candidates whose upper bound reaches the current (offset+limit+1)-th score. */
  needed: number | null;
  /** Candidates verified this round. */
  verified: number | null;
}

const depthsLiteral = (depths: number[]) =>
  `{${depths.map((d) => String(Math.min(d, FULL_DEPTH))).join(',')}}`;
const f8 = (value: number) => sql.raw(`${Number.isFinite(value) ? String(value) : '0'}::float8`);

/** Where the rounds start: list depth m, verification budget v, first step (defaults below; tests start small). */
export interface TopKStart {
  depth?: number | undefined;
  verify?: number | undefined;
  /** Candidates verified before the first step's k-th score filters the rest of the budget. */
  firstStep?: number | undefined;
  /** Gives up after this many rounds (tests, to reach the fallback on a small collection). */
  maxRounds?: number | undefined;
}

export async function rankTopK(db: Db, rq: RankQuery, start: TopKStart = {}): Promise<TopKOutcome> {
  const { accountId: a, collection: c } = rq.scope;
  const { plan, after } = rq;
  const need = rq.offset + rq.limit + 1;
  // R, from the references the postings were written with, read in the same snapshot as the
  // postings (a rebase may have happened since the plan was read); 1e6 if the collection vanished,
  // which still bounds (sat never exceeds k1 + 1).
  const ratio = sql`(select coalesce(greatest(1::float8, ${f8(plan.avgTitle)} / c.impact_title_avg,
      ${f8(plan.avgBody)} / c.impact_body_avg), 1e6::float8) * ${f8(1 + EPSILON)}
    from search_collections c where c.account_id = ${a} and c.name = ${c})`;
  const terms = textArrayLiteral(plan.terms.map((t) => t.term));
  const coefs = `{${plan.terms.map((t) => String(t.weight * idf(plan.n, t.df))).join(',')}}`;
  const tsquery = sql`${plan.tsquery}::tsquery`;
  const keyset =
    after?.score === undefined
      ? sql`true`
      : sql`(s.score < ${after.score}::float8 or (s.score = ${after.score}::float8 and s.id > ${after.id}))`;
  const sat = (x: ReturnType<typeof sql>) => sql`(${x}) * ${f8(K1 + 1)} / (${f8(K1)} + (${x}))`;

  // Several terms need deeper lists before the sum of their bounds drops below the k-th score.
  const several = plan.terms.length > 1;
  const depth = several ? Math.min(2048, Math.max(512, Math.floor(4096 / plan.terms.length))) : 256;
  let depths = plan.terms.map(() => start.depth ?? Math.max(depth, 16 * need));
  const budget = several ? Math.min(512, Math.max(128, Math.floor(1024 / plan.terms.length))) : 64;
  let v = start.verify ?? Math.max(budget, 6 * need);
  // A lower bound on the (offset+limit+1)-th score, from the previous round's verified hits:
  // candidates whose upper bound is below it need no verification.
  let theta = Number.NEGATIVE_INFINITY;
  for (let rounds = 1; ; rounds++) {
    const floor = Number.isFinite(theta) ? theta - EPSILON * Math.max(1, Math.abs(theta)) : -1e300;
    // Verification in two steps within the statement: the va best candidates by upper bound, then
    // the rest of the budget only where the upper bound reaches the k-th score found in the first.
    const va = Math.min(v, start.firstStep ?? Math.max(128, 4 * need));
    const verified = (where: SQL) => sql`
      select m.id, round((${scoreExpression(plan)})::numeric, ${sql.raw(String(SCORE_DIGITS))})::float8 as score
      from (
        select d.id, ${scoringColumns(plan)}
        from ranked x
        cross join lateral (
          select * from search_documents d
          where d.account_id = ${a} and d.collection = ${c} and d.id = x.doc_id
        ) d
        where ${where} and d.tsv @@ ${tsquery} and ${filterSql(rq.filter)}
        offset 0
      ) m`;
    const rows = await queryRows<RoundRow>(
      db,
      sql`
      with t as (
        select * from unnest(${terms}::text[], ${coefs}::float8[], ${depthsLiteral(depths)}::int[])
          with ordinality as t(term, coef, depth, i)
      ),
      lists as (
        select t.i, x.doc_id, x.impact, t.coef * ${sat(sql`x.tfn`)} as s
        from t cross join lateral (
          select p.doc_id, p.impact,
            ${f8(W_TITLE)} * p.title_tf / (${f8(1 - B)} + ${f8(B)} * p.title_len / ${f8(plan.avgTitle)})
              + ${f8(W_BODY)} * p.body_tf / (${f8(1 - B)} + ${f8(B)} * p.body_len / ${f8(plan.avgBody)}) as tfn
          from search_postings p
          where p.account_id = ${a} and p.collection = ${c} and p.term = t.term
          order by p.impact desc nulls last
          limit t.depth
        ) x
      ),
      bounds as (
        select t.i, count(l.i) < t.depth as exhausted,
          case when count(l.i) < t.depth then 0::float8
            else t.coef * ${sat(sql`coalesce(${ratio}, 1e6::float8) * min(l.impact)::float8`)} end as b
        from t left join lists l on l.i = t.i
        group by t.i, t.coef, t.depth
      ),
      cand as (
        select l.doc_id, sum(l.s) + (select sum(b) from bounds) - sum(bd.b) as upper
        from lists l join bounds bd on bd.i = l.i
        group by l.doc_id
      ),
      ranked as (
        -- Only candidates that can still need verification are sorted (whole lists bring many).
        select doc_id, upper, row_number() over (order by upper desc, doc_id) as rn
        from cand where upper >= ${f8(floor)}
      ),
      scored_a as (${verified(sql`x.rn <= ${va} and x.upper >= ${f8(floor)}`)}),
      floor_b as (
        select greatest(${f8(floor)}, th - ${f8(EPSILON)} * greatest(1::float8, abs(th))) as fb
        from (select coalesce((
          select s.score from scored_a s where ${keyset} order by s.score desc, s.id offset ${need - 1} limit 1
        ), -1e300::float8) as th) t
      ),
      scored_b as (${verified(sql`x.rn > ${va} and x.rn <= ${v} and x.upper >= (select fb from floor_b)`)}),
      scored as (select * from scored_a union all select * from scored_b),
      hits as materialized (
        select s.id, s.score, row_number() over (order by s.score desc, s.id) as rn
        from scored s where ${keyset}
        order by s.score desc, s.id
        limit ${need}
      )
      select 'h' as kind, h.id, h.score, d.title, d.metadata,
        ${headlineSql(sql`${plan.language}::regconfig`, sql`${plan.highlight ?? plan.tsquery}::tsquery`)} as headline,
        null::float8 as ub, null::float8 as next_upper, null::boolean as exhausted, null::jsonb as bounds,
        null::int as needed, null::int as verified
      from hits h
      cross join lateral (
        select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = h.id
      ) d
      where h.rn > ${rq.offset}
      union all
      select 'm', null, null, null, null, null,
        (select coalesce(sum(b), 0) from bounds),
        greatest(
          (select max(upper) from ranked where rn > ${v} or (rn > ${va} and upper < (select fb from floor_b))),
          (select max(upper) from cand where upper < ${f8(floor)})),
        (select bool_and(exhausted) from bounds),
        (select jsonb_agg(b order by i) from bounds),
        (select count(*)::int from cand where upper >= (select score from hits where rn = ${need})),
        (select count(*)::int from ranked where rn <= ${v}
          and (rn <= ${va} or upper >= (select fb from floor_b)))`,
    );
    const meta = rows.find((r) => r.kind === 'm');
    const hits = rows
      .filter((r) => r.kind === 'h')
      .sort((x, y) => (y.score ?? 0) - (x.score ?? 0) || ((x.id ?? '') < (y.id ?? '') ? -1 : 1));
    const ub = meta?.ub ?? Number.POSITIVE_INFINITY;
    const nextUpper = meta?.next_upper ?? null;
    const threshold = Math.max(ub, nextUpper ?? 0);
    const last = hits[rq.limit];
    // hits hold the rows after the offset only: the (offset+limit+1)-th hit overall is hits[limit].
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
    // What keeps the page from being proven (both may): an unverified candidate that could rank
    // before or tie with the k-th hit, or the bound on everything unread.
    const unverifiedBlock = nextUpper !== null && (kth === null || margin(nextUpper) >= kth);
    const boundBlocks = kth === null ? nextUpper === null : margin(ub) >= kth;
    // Whole lists only where any scored term is a match (ranked OR): a document found in them is
    // then a hit, whereas a phrase or a required word still fails on most of them (depths.ts).
    const known = plan.matchAnyOf ? theta : Number.NEGATIVE_INFINITY;
    const next = nextDepths(plan.terms, depths, meta?.bounds ?? [], known, MAX_READ, MAX_M, MAX_WHOLE_READ);
    // Lists read whole also tighten every candidate's upper bound, which is what helps when more
    // candidates reach the k-th score than verification may visit.
    const wholeHelps =
      unverifiedBlock &&
      kth !== null &&
      (meta?.needed ?? 0) * 1.25 + 16 > MAX_V &&
      next?.some((d, i) => d === FULL_DEPTH && depths[i] !== FULL_DEPTH);
    if (boundBlocks || wholeHelps) {
      // Reading deeper lowers the bounds; nothing else can.
      if (meta?.exhausted || !next) return { rows: undefined, rounds, theta };
      depths = next;
      // Deeper (whole) lists tighten every upper bound: this round's count of candidates to verify
      // says little about the next one's, so verification grows by a fixed step.
      if (unverifiedBlock && kth !== null) v = Math.max(v * 2, 1024);
    } else if (unverifiedBlock) {
      if (kth === null) {
        // Too few verified candidates match (a rare phrase, a selective filter): extrapolate the
        // pass rate, and give up at once when that needs more than the budget.
        const verified = meta?.verified ?? v;
        const needs = Math.ceil((need * verified * 1.5) / Math.max(hits.length + rq.offset, 1));
        if (needs > MAX_V) return { rows: undefined, rounds, theta };
        v = Math.max(v * 2, needs);
      } else v = Math.max(v * 2, Math.ceil((meta?.needed ?? 0) * 1.25) + 16);
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

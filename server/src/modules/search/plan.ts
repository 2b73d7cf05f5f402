import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { AnalysedUnit, QueryAnalysis } from './analysis';
import { idf } from './bm25';
import { collectionVersionSql } from './collections';
import type { Operator, QueryPlan, ScoredTerm } from './query-plan';
import { queryRows, quoteLexeme, type Scope, textArrayLiteral } from './sql';
import type { Clause, ParsedQuery } from './syntax';

/**
 * At most this many terms are scored, the most informative ones (highest idf). In ranked ("or")
 * mode the plain words beyond them are left out of the query altogether, so a pasted paragraph
 * costs what its 32 rarest words cost; required, excluded and quoted parts always filter.
 */
export const MAX_SCORED_TERMS = 32;
/** Required, excluded, quoted and OR-ed parts of one query, after removing repeats (400 above). */
export const MAX_QUERY_CLAUSES = 64;

export type { Operator, QueryPlan, ScoredTerm } from './query-plan';

/** How a term repeated in the query weighs: 1 + ln(times), so a pasted paragraph's theme counts a little more. */
export const queryTermWeight = (times: number) => 1 + Math.log(Math.max(times, 1));

/** N and the average field lengths BM25F reads, from a collection's row. */
export function collectionStatistics(docCount: number, titleLenSum: number, bodyLenSum: number) {
  const n = Math.max(docCount, 1);
  return { n, avgTitle: Math.max(titleLenSum / n, 1), avgBody: Math.max(bodyLenSum / n, 1) };
}

/** A unit that analyses to at most one lexeme (a word, or a quoted single word): a plain word's match. */
const singleLexeme = (u: AnalysedUnit) =>
  u.lexemes.length <= 1 && !/[<&|!:]/.test(u.q.replace(/'(?:[^']|'')*'/g, ''));

/**
 * Keyword mode: the parsed query analysed by the collection's language in one statement (each
 * operator part through phraseto_tsquery, the plain words through to_tsvector, with their
 * frequency in the query), with the collection statistics and the df of every lexeme.
 */
export async function planKeyword(
  db: Db,
  scope: Scope,
  parsed: ParsedQuery,
  operator: Operator,
  maxTerms = MAX_SCORED_TERMS,
): Promise<QueryPlan | undefined> {
  const units = parsed.clauses.flatMap((c) => c.units.map((u) => u.text));
  const rows = await queryRows<{
    language: string;
    n: number;
    tl: number;
    bl: number;
    units: AnalysedUnit[] | null;
    words: Record<string, number> | null;
    dfs: Record<string, number> | null;
    rt: number | null;
    rb: number | null;
    version: string;
  }>(
    db,
    sql`
    with c as (
      select * from search_collections where account_id = ${scope.accountId} and name = ${scope.collection}
    ),
    u as (
      select u.i, phraseto_tsquery(c.language::regconfig, u.t)::text as q,
        array(select v.lexeme from unnest(to_tsvector(c.language::regconfig, u.t)) v) as lexemes
      from c cross join unnest(${textArrayLiteral(units)}::text[]) with ordinality as u(t, i)
    ),
    w as (
      select v.lexeme, coalesce(array_length(v.positions, 1), 1) as times
      from c cross join unnest(to_tsvector(c.language::regconfig, ${parsed.words.join(' ')})) v
    ),
    lex as (select lexeme from w union select unnest(lexemes) from u)
    select c.language, c.doc_count::float8 as n, c.title_len_sum::float8 as tl, c.body_len_sum::float8 as bl,
      c.impact_title_avg as rt, c.impact_body_avg as rb, ${collectionVersionSql('c')} as version,
      (select jsonb_agg(jsonb_build_object('q', u.q, 'lexemes', to_jsonb(u.lexemes)) order by u.i) from u) as units,
      (select jsonb_object_agg(w.lexeme, w.times) from w) as words,
      (select jsonb_object_agg(st.term, st.df) from search_terms st join lex on st.term = lex.lexeme
        where st.account_id = c.account_id and st.collection = c.name) as dfs
    from c`,
  );
  const row = rows[0];
  if (!row) return undefined;
  const dfs = new Map(Object.entries(row.dfs ?? {}));
  return buildKeywordPlan(
    parsed,
    operator,
    maxTerms,
    row,
    { words: new Map(Object.entries(row.words ?? {})), units: row.units ?? [] },
    (t) => dfs.get(t) ?? 0,
  );
}

/** What plan statements read of a collection's row (planKeyword's, memory.ts's). */
export interface CollectionRow {
  language: string;
  n: number;
  tl: number;
  bl: number;
  rt: number | null;
  rb: number | null;
  version: string;
}

/** jsonb's order of an object's keys (shorter first, then bytewise), which the plan's term order follows. */
const jsonbKeyOrder = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

/**
 * The plan of a parsed query from its analysis (analysis.ts), the collection's row and the document
 * frequencies: the same whether the analysis came from the plan statement or from memory.
 */
export function buildKeywordPlan(
  parsed: ParsedQuery,
  operator: Operator,
  maxTerms: number,
  row: CollectionRow,
  analysis: QueryAnalysis,
  df: (term: string) => number,
): QueryPlan {
  const stats = collectionStatistics(row.n, row.tl, row.bl);
  const analysed = analysis.units;
  const wordTimes = [...analysis.words].sort((x, y) => jsonbKeyOrder(x[0], y[0]));
  let next = 0;
  const analysedClauses = parsed.clauses.map((clause: Clause) => ({
    occur: operator === 'and' && clause.occur === 'should' ? 'must' : clause.occur,
    units: clause.units.map(() => analysed[next++] ?? { q: '', lexemes: [] }),
  }));
  // With operator "or", `a OR b` of single words matches and ranks exactly as `a b` does: such a
  // group is read as plain words, so it is ranked like them (top-k with MaxScore, the 32 most
  // informative scored) instead of as a tsquery every candidate must be checked against; 16 common
  // words joined by OR otherwise made top-k give up and score most of the collection.
  // With operator "and" the same holds for a query that is one such group (and exclusions) alone.
  const positive = analysedClauses.filter((c) => c.occur !== 'must_not');
  const lone = positive[0];
  const loneGroup =
    operator === 'and' &&
    parsed.words.length === 0 &&
    positive.length === 1 &&
    lone !== undefined &&
    lone.units.length > 1 &&
    lone.units.every(singleLexeme);
  const mode: Operator = loneGroup ? 'or' : operator;
  const folded = analysedClauses.filter(
    (c) => (c.occur === 'should' && c.units.every(singleLexeme)) || (loneGroup && c === lone),
  );
  const clauses = analysedClauses.filter((c) => !folded.includes(c));

  // Term weights: how often each lexeme occurs in the query's positive parts.
  const times = new Map<string, number>(wordTimes);
  for (const clause of folded) {
    for (const unit of clause.units) {
      for (const lexeme of unit.lexemes) times.set(lexeme, (times.get(lexeme) ?? 0) + 1);
    }
  }
  const fixed = new Set<string>();
  for (const clause of clauses) {
    if (clause.occur === 'must_not') continue;
    for (const unit of clause.units) {
      for (const lexeme of unit.lexemes) {
        times.set(lexeme, (times.get(lexeme) ?? 0) + 1);
        fixed.add(lexeme);
      }
    }
  }
  const wordLexemes = [
    ...new Set([
      ...wordTimes.map(([lexeme]) => lexeme),
      ...folded.flatMap((c) => c.units.flatMap((u) => u.lexemes)),
    ]),
  ];
  if (mode === 'and') for (const lexeme of wordLexemes) fixed.add(lexeme);
  const term = (t: string): ScoredTerm => ({
    term: t,
    weight: queryTermWeight(times.get(t) ?? 1),
    df: df(t),
  });
  const byIdf = (x: ScoredTerm, y: ScoredTerm) =>
    idf(stats.n, y.df) * y.weight - idf(stats.n, x.df) * x.weight || (x.term < y.term ? -1 : 1);
  // Terms the collection does not hold add nothing to any score.
  const fixedTerms = [...fixed]
    .map(term)
    .filter((t) => t.df > 0)
    .sort(byIdf);
  const optional = wordLexemes
    .filter((t) => !fixed.has(t))
    .map(term)
    .filter((t) => t.df > 0)
    .sort(byIdf)
    .slice(0, Math.max(0, maxTerms - fixedTerms.length));
  const terms = [...fixedTerms.slice(0, maxTerms), ...optional];
  // Words the caller joined by OR that the match leaves out (past the scored terms): the page may miss
  // documents holding only those, which the response says (approximate).
  const kept = new Set(terms.map((t) => t.term));
  const leftOut = folded.some((c) => c.units.some((u) => u.lexemes.some((l) => !kept.has(l) && df(l) > 0)));

  const required = mode === 'and' ? wordLexemes : [];
  const tsquery = matchQuery(
    clauses,
    required,
    optional.map((t) => t.term),
  );
  // What every match must contain (as matchQuery builds it): each required part of one unit (an
  // OR-group's units are alternatives); with nothing required, the only optional part if it is one.
  const must = clauses.filter((c) => c.occur === 'must');
  const should = clauses.filter((c) => c.occur === 'should');
  const holding =
    must.length > 0 || required.length > 0
      ? must
      : optional.length === 0 && should.length === 1
        ? should
        : [];
  const phrases = holding
    .filter((c) => c.units.length === 1)
    .map((c) => c.units[0]?.q ?? '')
    .filter((q) => q.includes('<'));
  const disjunctive =
    mode === 'or' &&
    fixedTerms.length === 0 &&
    clauses.every((c) => c.occur === 'must_not' || c.units.every((u) => u.q.trim() === ''));
  return {
    language: row.language,
    ...stats,
    version: row.version,
    tsquery,
    highlight: terms.map((t) => t.term),
    terms,
    truncated: fixedTerms.length > maxTerms,
    refs: row.rt === null || row.rb === null ? undefined : { title: row.rt, body: row.rb },
    ...(phrases.length > 0 && { phrases }),
    ...(leftOut && { leftOut }),
    ...(disjunctive && { matchAnyOf: (subset: string[]) => matchQuery(clauses, [], subset) }),
  };
}

/**
 * What matches, as tsquery text: every required part (and every plain word with operator "and"),
 * none of the excluded ones, and, when nothing is required, any one optional part (a scored word,
 * a phrase, an OR group). Parts that analyse to nothing (stop words) are left out.
 */
function matchQuery(
  clauses: { occur: string; units: AnalysedUnit[] }[],
  requiredLexemes: string[],
  optionalLexemes: string[],
): string | null {
  const part = (units: AnalysedUnit[]) => {
    const qs = units.map((u) => u.q).filter((q) => q.trim() !== '');
    return qs.length === 0
      ? null
      : qs.length === 1
        ? `( ${qs[0]} )`
        : `( ${qs.map((q) => `( ${q} )`).join(' | ')} )`;
  };
  const must = [
    ...requiredLexemes.map(quoteLexeme),
    ...clauses.filter((c) => c.occur === 'must').flatMap((c) => part(c.units) ?? []),
  ];
  const not = clauses.filter((c) => c.occur === 'must_not').flatMap((c) => part(c.units) ?? []);
  const should = [
    ...optionalLexemes.map(quoteLexeme),
    ...clauses.filter((c) => c.occur === 'should').flatMap((c) => part(c.units) ?? []),
  ];
  const positive = must.length > 0 ? must : should.length > 0 ? [`( ${should.join(' | ')} )`] : [];
  const all = [...positive, ...not.map((q) => `!${q}`)];
  return all.length === 0 ? null : all.join(' & ');
}

import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { idf } from './bm25';
import { collectionVersionSql } from './collections';
import { type CollectionRow, collectionStatistics, MAX_SCORED_TERMS } from './plan';
import type { Operator, QueryPlan } from './query-plan';
import { queryRows, quoteLexeme, type Scope } from './sql';

/** Candidates per query word; more widen recall and cost a longer OR in the tsquery. */
const CANDIDATES_PER_WORD = 5;

export interface WeightedTerm {
  term: string;
  /** Trigram similarity to the word typed (1 for an exact match); scales the term's BM25 share. */
  weight: number;
  df: number;
}

/** Words expanded at most, the longest first (a long query's short words are rarely its point). */
export const MAX_FUZZY_WORDS = 32;

/**
 * Fuzzy mode's plan in one statement: the collection's row (language, statistics, references and
 * version, as planKeyword reads them) and every query word, analysed like the documents, matched
 * against the collection's vocabulary through its trigram index (`%`: similarity at least pg_trgm's
 * threshold, 0.3 by default), the CANDIDATES_PER_WORD most similar. Three statements before (the
 * collection's row, the expansion, the references): the expansion needs the collection's language,
 * which the statement reads itself. With operator "and" a word with no similar indexed term makes the
 * query match nothing; with "or" any candidate of any word matches, the most informative (similarity
 * times idf) scored, as keyword mode ranks. Each candidate's BM25 share is weighted by its similarity.
 */
export async function planFuzzy(
  db: Db,
  scope: Scope,
  query: string,
  operator: Operator,
  maxTerms = MAX_SCORED_TERMS,
): Promise<QueryPlan | undefined> {
  const { accountId, collection } = scope;
  const rows = await queryRows<
    CollectionRow & { candidates: [string, string | null, string | null, number | null][] | null }
  >(
    db,
    sql`
    with c as (select * from search_collections where account_id = ${accountId} and name = ${collection}),
    w as (
      select u.lexeme from c cross join unnest(to_tsvector(c.language::regconfig, ${query})) u
      order by length(u.lexeme) desc, u.positions[1] limit ${MAX_FUZZY_WORDS}
    )
    select c.language, c.doc_count::float8 as n, c.title_len_sum::float8 as tl, c.body_len_sum::float8 as bl,
      c.impact_title_avg as rt, c.impact_body_avg as rb, ${collectionVersionSql('c')} as version,
      -- similarity as text: float8's own output, which a jsonb number would round to 15 digits.
      (select jsonb_agg(jsonb_build_array(w.lexeme, t.term, t.sim::float8::text, t.df)
          order by w.lexeme, t.sim desc, t.term)
        from w left join lateral (
          select st.term, st.df, similarity(st.term, w.lexeme) as sim
          from search_terms st
          where st.account_id = ${accountId} and st.collection = ${collection} and st.term % w.lexeme
          order by similarity(st.term, w.lexeme) desc, st.term
          limit ${CANDIDATES_PER_WORD}
        ) t on true) as candidates
    from c`,
  );
  const row = rows[0];
  if (!row) return undefined;
  const statistic = collectionStatistics(row.n, row.tl, row.bl);
  const byWord = new Map<string, WeightedTerm[]>();
  for (const [word, term, sim, df] of row.candidates ?? []) {
    const list = byWord.get(word) ?? [];
    if (term !== null && sim !== null) list.push({ term, weight: Number(sim), df: df ?? 1 });
    byWord.set(word, list);
  }
  const lists = [...byWord.values()];
  const none =
    lists.every((list) => list.length === 0) || (operator === 'and' && lists.some((l) => l.length === 0));
  const best = new Map<string, WeightedTerm>();
  if (!none) {
    for (const list of lists) {
      for (const t of list) if ((best.get(t.term)?.weight ?? 0) < t.weight) best.set(t.term, t);
    }
  }
  // The most informative candidates, by similarity times idf.
  const ranked = [...best.values()].sort(
    (x, y) =>
      y.weight * idf(statistic.n, y.df) - x.weight * idf(statistic.n, x.df) || (x.term < y.term ? -1 : 1),
  );
  const terms = ranked.slice(0, maxTerms);
  // In "or" mode the scored candidates are the query; in "and" mode every word's candidates filter
  // (AND over the words of OR over each word's candidates).
  const tsquery = none
    ? null
    : operator === 'or'
      ? terms.map((t) => quoteLexeme(t.term)).join(' | ')
      : lists.map((list) => `(${list.map((t) => quoteLexeme(t.term)).join(' | ')})`).join(' & ');
  return {
    language: row.language,
    ...statistic,
    version: row.version,
    tsquery: tsquery === '' ? null : tsquery,
    highlight: terms.map((t) => t.term),
    terms,
    truncated: operator === 'and' && ranked.length > maxTerms,
    refs: row.rt === null || row.rb === null ? undefined : { title: row.rt, body: row.rb },
    ...(operator === 'or' && {
      matchAnyOf: (subset: string[]) => (subset.length > 0 ? subset.map(quoteLexeme).join(' | ') : null),
    }),
  };
}

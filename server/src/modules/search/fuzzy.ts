import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Operator } from './query-plan';
import { queryRows, quoteLexeme, type Scope } from './sql';

/** Candidates per query word; more widen recall and cost a longer OR in the tsquery. */
const CANDIDATES_PER_WORD = 5;

export interface WeightedTerm {
  term: string;
  /** Trigram similarity to the word typed (1 for an exact match); scales the term's BM25 share. */
  weight: number;
  df: number;
}

export interface FuzzyExpansion {
  /** A tsquery text: AND (operator "and") or OR over the query words, each an OR of its similar indexed terms. */
  tsquery: string | null;
  terms: WeightedTerm[];
}

/** Words expanded at most, the longest first (a long query's short words are rarely its point). */
export const MAX_FUZZY_WORDS = 32;

/**
 * Typo tolerance: every word of the query is analysed like the documents and matched against the
 * collection's vocabulary through its trigram index (`%`: similarity at least pg_trgm's threshold,
 * 0.3 by default). With operator "and" a word with no similar indexed term makes the query match
 * nothing; with "or" any candidate of any word matches.
 */
export async function expandFuzzy(
  db: Db,
  scope: Scope,
  language: string,
  query: string,
  operator: Operator,
): Promise<FuzzyExpansion> {
  const rows = await queryRows<{ word: string; term: string | null; sim: number | null; df: number | null }>(
    db,
    sql`
    select w.lexeme as word, t.term, t.sim::float8 as sim, t.df
    from (
      select u.lexeme from unnest(to_tsvector(${language}::regconfig, ${query})) u
      order by length(u.lexeme) desc, u.positions[1] limit ${MAX_FUZZY_WORDS}
    ) w
    left join lateral (
      select st.term, st.df, similarity(st.term, w.lexeme) as sim
      from search_terms st
      where st.account_id = ${scope.accountId} and st.collection = ${scope.collection} and st.term % w.lexeme
      order by similarity(st.term, w.lexeme) desc, st.term
      limit ${CANDIDATES_PER_WORD}
    ) t on true
    order by w.lexeme, t.sim desc`,
  );
  const byWord = new Map<string, WeightedTerm[]>();
  for (const row of rows) {
    const list = byWord.get(row.word) ?? [];
    if (row.term !== null && row.sim !== null)
      list.push({ term: row.term, weight: row.sim, df: row.df ?? 1 });
    byWord.set(row.word, list);
  }
  const lists = [...byWord.values()];
  if (lists.every((list) => list.length === 0) || (operator === 'and' && lists.some((l) => l.length === 0))) {
    return { tsquery: null, terms: [] };
  }
  const best = new Map<string, WeightedTerm>();
  for (const list of byWord.values()) {
    for (const t of list) if ((best.get(t.term)?.weight ?? 0) < t.weight) best.set(t.term, t);
  }
  const groups = lists
    .filter((list) => list.length > 0)
    .map((list) => `(${list.map((t) => quoteLexeme(t.term)).join(' | ')})`);
  return {
    tsquery: groups.join(operator === 'and' ? ' & ' : ' | '),
    terms: [...best.values()],
  };
}

import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { queryRows, type Scope } from './sql';

/** Candidates per query word; more widen recall and cost a longer OR in the tsquery. */
const CANDIDATES_PER_WORD = 5;

export interface WeightedTerm {
  term: string;
  /** Trigram similarity to the word typed (1 for an exact match); scales the term's BM25 share. */
  weight: number;
  df: number;
}

export interface FuzzyExpansion {
  /** A tsquery text: AND over the query words, each an OR of its similar indexed terms. */
  tsquery: string | null;
  terms: WeightedTerm[];
}

const quoteLexeme = (term: string) => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * Typo tolerance: every word of the query is analysed like the documents and matched against the
 * collection's vocabulary through its trigram index (`%`: similarity at least pg_trgm's threshold,
 * 0.3 by default). A word with no similar indexed term makes the query match nothing, as in
 * keyword mode.
 */
export async function expandFuzzy(
  db: Db,
  scope: Scope,
  language: string,
  query: string,
): Promise<FuzzyExpansion> {
  const rows = await queryRows<{ word: string; term: string | null; sim: number | null; df: number | null }>(
    db,
    sql`
    select w.lexeme as word, t.term, t.sim::float8 as sim, t.df
    from (select distinct u.lexeme from unnest(to_tsvector(${language}::regconfig, ${query})) u) w
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
  if (byWord.size === 0 || [...byWord.values()].some((list) => list.length === 0)) {
    return { tsquery: null, terms: [] };
  }
  const best = new Map<string, WeightedTerm>();
  for (const list of byWord.values()) {
    for (const t of list) if ((best.get(t.term)?.weight ?? 0) < t.weight) best.set(t.term, t);
  }
  const groups = [...byWord.values()].map((list) => `(${list.map((t) => quoteLexeme(t.term)).join(' | ')})`);
  return {
    tsquery: groups.join(' & '),
    terms: [...best.values()],
  };
}

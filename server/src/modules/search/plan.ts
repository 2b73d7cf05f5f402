import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { readCollection } from './collections';
import { expandFuzzy } from './fuzzy';
import { type References, readReferences } from './postings';
import { queryRows, type Scope } from './sql';

/** Terms beyond this many still filter (they are in the tsquery) but do not add to the score. */
export const MAX_SCORED_TERMS = 32;

export interface ScoredTerm {
  term: string;
  /** 1 in keyword mode, the trigram similarity in fuzzy mode. */
  weight: number;
  df: number;
}

/** Everything the ranking statement needs, read in one round trip before it. */
export interface QueryPlan {
  language: string;
  n: number;
  avgTitle: number;
  avgBody: number;
  /** tsquery text; null when nothing can match (only stop words, or a word like nothing indexed). */
  tsquery: string | null;
  terms: ScoredTerm[];
  /** True when the query has more lexemes than MAX_SCORED_TERMS (top-k then does not apply). */
  truncated: boolean;
  /** The collection's postings references (postings.ts); undefined while it has no postings. */
  refs: References | undefined;
}

function statistics(docCount: number, titleLenSum: number, bodyLenSum: number) {
  const n = Math.max(docCount, 1);
  return { n, avgTitle: Math.max(titleLenSum / n, 1), avgBody: Math.max(bodyLenSum / n, 1) };
}

const LEXEME = "'((?:[^']|'')*)'";

/** Keyword mode: websearch syntax parsed by Postgres, the positive and negative lexemes with their df. */
export async function planKeyword(db: Db, scope: Scope, query: string): Promise<QueryPlan | undefined> {
  const rows = await queryRows<{
    language: string;
    n: number;
    tl: number;
    bl: number;
    tsquery: string;
    dfs: Record<string, number>;
    rt: number | null;
    rb: number | null;
  }>(
    db,
    sql`
    select c.language, c.doc_count::float8 as n, c.title_len_sum::float8 as tl, c.body_len_sum::float8 as bl,
      c.impact_title_avg as rt, c.impact_body_avg as rb, q.tsq::text as tsquery,
      coalesce((
        select jsonb_object_agg(st.term, st.df) from search_terms st
        where st.account_id = c.account_id and st.collection = c.name
          and st.term = any(array(
            select replace((m)[1], '''''', '''') from regexp_matches(q.tsq::text, ${LEXEME}, 'g') as m))
      ), '{}'::jsonb) as dfs
    from search_collections c
    cross join lateral (select websearch_to_tsquery(c.language::regconfig, ${query}) as tsq) q
    where c.account_id = ${scope.accountId} and c.name = ${scope.collection}`,
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    language: row.language,
    ...statistics(row.n, row.tl, row.bl),
    tsquery: row.tsquery.trim() === '' ? null : row.tsquery,
    terms: Object.entries(row.dfs)
      .slice(0, MAX_SCORED_TERMS)
      .map(([term, df]) => ({ term, weight: 1, df })),
    truncated: Object.keys(row.dfs).length > MAX_SCORED_TERMS,
    refs: row.rt === null || row.rb === null ? undefined : { title: row.rt, body: row.rb },
  };
}

/** Fuzzy mode: each query word expanded to similar indexed terms (see fuzzy.ts). */
export async function planFuzzy(db: Db, scope: Scope, query: string): Promise<QueryPlan | undefined> {
  const stats = await readCollection(db, scope);
  if (!stats) return undefined;
  const expansion = await expandFuzzy(db, scope, stats.language, query);
  return {
    language: stats.language,
    ...statistics(stats.docCount, stats.titleLenSum, stats.bodyLenSum),
    tsquery: expansion.tsquery,
    terms: expansion.terms.slice(0, MAX_SCORED_TERMS),
    truncated: expansion.terms.length > MAX_SCORED_TERMS,
    refs: await readReferences(db, scope),
  };
}

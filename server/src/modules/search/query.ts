import type { SearchFilter } from '@tessera/shared';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { CursorPosition } from './cursor';
import { filterSql } from './filter';
import { idfSql, SCORE_DIGITS, termScoreSql } from './rank';
import { headlineSql } from './snippet';
import { queryRows, type Scope } from './sql';

export interface RankedRow {
  id: string;
  score: number;
  title: string;
  metadata: Record<string, unknown>;
  headline: string;
}

export interface RankQuery {
  scope: Scope;
  /** SQL yielding the tsquery; may refer to `stats.language`. */
  tsquery: SQL;
  /** SQL rows (term text, weight float8) of the terms to score; may refer to `q.q`. */
  terms: SQL;
  filter: SearchFilter | undefined;
  after: CursorPosition | undefined;
  offset: number;
  limit: number;
}

/** Lexemes of a tsquery, read from its text form ('a' & !'b' <-> 'c'), quotes undone. */
export function tsqueryTermsSql(): SQL {
  return sql`select distinct replace((m)[1], '''''', '''') as term, 1.0::float8 as weight
             from regexp_matches(q.q::text, ${"'((?:[^']|'')*)'"}, 'g') as m`;
}

/**
 * One statement: collection statistics, matching through the GIN index, BM25F over every match,
 * the keyset or offset page ordered by (score desc, id), and a snippet for each hit of the page.
 */
export async function rankDocuments(db: Db, rq: RankQuery): Promise<RankedRow[]> {
  const { accountId: a, collection: c } = rq.scope;
  const after = rq.after;
  const keyset =
    after?.score === undefined
      ? sql`true`
      : sql`(s.score < ${after.score}::float8 or (s.score = ${after.score}::float8 and s.id > ${after.id}))`;
  return queryRows<RankedRow>(
    db,
    sql`
    with stats as (
      select language::regconfig as language, greatest(doc_count, 1)::float8 as n,
        greatest(title_len_sum::float8 / greatest(doc_count, 1), 1) as avg_title,
        greatest(body_len_sum::float8 / greatest(doc_count, 1), 1) as avg_body
      from search_collections where account_id = ${a} and name = ${c}
    ),
    q as (select (${rq.tsquery}) as q from stats),
    terms as (
      select t.term, max(t.weight) as weight, ${idfSql()} as idf
      from q cross join stats cross join lateral (${rq.terms}) t
      join search_terms st on st.account_id = ${a} and st.collection = ${c} and st.term = t.term
      group by t.term, st.df, stats.n
    ),
    matched as (
      select d.id, d.tf, d.title_len, d.body_len
      from search_documents d, q
      where d.account_id = ${a} and d.collection = ${c} and d.tsv @@ q.q and ${filterSql(rq.filter)}
    ),
    scored as (
      select m.id, round(coalesce(sum(${termScoreSql()}), 0)::numeric, ${sql.raw(String(SCORE_DIGITS))})::float8 as score
      from matched m cross join stats
      left join terms t on m.tf ? t.term
      group by m.id
    ),
    page as (
      select s.id, s.score from scored s where ${keyset}
      order by s.score desc, s.id
      limit ${rq.limit + 1} offset ${rq.offset}
    )
    select p.id, p.score, d.title, d.metadata, ${headlineSql(sql`stats.language`, sql`q.q`)} as headline
    from page p
    join search_documents d on d.account_id = ${a} and d.collection = ${c} and d.id = p.id
    cross join q cross join stats
    order by p.score desc, p.id`,
  );
}

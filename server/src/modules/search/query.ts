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
    with stats as materialized (
      select language::regconfig as language, greatest(doc_count, 1)::float8 as n,
        greatest(title_len_sum::float8 / greatest(doc_count, 1), 1) as avg_title,
        greatest(body_len_sum::float8 / greatest(doc_count, 1), 1) as avg_body
      from search_collections where account_id = ${a} and name = ${c}
    ),
    q as materialized (select (${rq.tsquery}) as q from stats),
    wanted as materialized (select t.term, max(t.weight) as weight from q cross join lateral (${rq.terms}) t group by t.term),
    terms as materialized (
      select w.term, w.weight, ${idfSql()} as idf
      from search_terms st
      join wanted w on w.term = st.term
      cross join stats
      where st.account_id = ${a} and st.collection = ${c}
        and st.term = any(array(select term from wanted))
    ),
    matched as (
      select d.id, d.tf, d.title_len, d.body_len
      from search_documents d
      where d.account_id = ${a} and d.collection = ${c} and d.tsv @@ (select q from q) and ${filterSql(rq.filter)}
    ),
    scored as (
      select m.id, round(coalesce(x.score, 0)::numeric, ${sql.raw(String(SCORE_DIGITS))})::float8 as score
      from matched m
      cross join lateral (
        -- One jsonb lookup per term: each access to a compressed tf would decompress it again.
        select sum(${termScoreSql()}) as score
        from terms t cross join stats cross join lateral (select m.tf -> t.term as pair) f
        where f.pair is not null
      ) x
    ),
    page as materialized (
      select s.id, s.score from scored s where ${keyset}
      order by s.score desc, s.id
      limit ${rq.limit + 1} offset ${rq.offset}
    )
    select p.id, p.score, d.title, d.metadata, ${headlineSql(sql`stats.language`, sql`q.q`)} as headline
    from page p
    cross join lateral (
      select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = p.id
    ) d
    cross join q cross join stats
    order by p.score desc, p.id`,
  );
}

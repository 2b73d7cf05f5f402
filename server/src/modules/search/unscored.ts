import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { filterSql } from './filter';
import type { RankedRow, RankQuery } from './query';
import { snippetSourceSql } from './snippet';
import { queryRows } from './sql';

/**
 * A query with nothing to score (an exclusion alone, `-flow`, or one whose words the collection
 * lacks next to an exclusion): every match scores 0, so the page is the matches in id order. The
 * GIN index cannot find "documents without flow", and scoring every match read the whole
 * collection (0.4-0.7 s at 100k documents). Here the primary key is walked in id order from the
 * keyset and stops once the page is full: exact whenever the page fills (or the walk reaches the
 * end) within SCAN_ROWS documents, the usual case as an exclusion keeps most of a collection.
 * Past SCAN_ROWS without a full page (an exclusion of a word nearly every document holds) the
 * page holds what the walk found and is marked approximate.
 */
export const SCAN_ROWS = 20_000;

export async function rankUnscored(db: Db, rq: RankQuery): Promise<{ rows: RankedRow[]; complete: boolean }> {
  const { accountId: a, collection: c } = rq.scope;
  const { plan, after } = rq;
  // Every score is 0: a cursor from this query is at score 0, anything else sorts after or before all.
  const keyset =
    after?.score === undefined
      ? sql`true`
      : after.score > 0
        ? sql`true`
        : after.score < 0
          ? sql`false`
          : sql`d.id > ${after.id}`;
  const need = rq.offset + rq.limit + 1;
  const walk = sql`
    select d.id, d.tsv, d.metadata from search_documents d
    where d.account_id = ${a} and d.collection = ${c} and ${keyset}
    order by d.id
    limit ${SCAN_ROWS}`;
  const rows = await queryRows<RankedRow>(
    db,
    sql`
    with page as materialized (
      select d.id from (${walk}) d
      where d.tsv @@ ${plan.tsquery}::tsquery and ${filterSql(rq.filter)}
      order by d.id
      limit ${need}
    )
    select p.id, 0::float8 as score, d.title, d.metadata,
      ${snippetSourceSql()} as text
    from (select id from page order by id offset ${rq.offset}) p
    cross join lateral (
      select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = p.id
    ) d
    order by p.id`,
  );
  if (rows.length + rq.offset >= need) return { rows, complete: true };
  // A short page: complete when the walk reached the collection's end before its bound.
  const counted = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (select 1 from search_documents d
      where d.account_id = ${a} and d.collection = ${c} and ${keyset} order by d.id limit ${SCAN_ROWS}) w`,
  );
  return { rows, complete: (counted[0]?.n ?? 0) < SCAN_ROWS };
}

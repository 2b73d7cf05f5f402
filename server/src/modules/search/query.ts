import type { SearchFilter } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { SCORE_DIGITS } from './bm25';
import type { CursorPosition } from './cursor';
import { filterSql } from './filter';
import type { QueryPlan } from './query-plan';
import { scoreExpression, scoringSource } from './rank';
import { snippetSourceSql, type WordBounds } from './snippet';
import { queryRows, type Scope, textArrayLiteral } from './sql';

export interface RankedRow {
  id: string;
  score: number;
  title: string;
  metadata: Record<string, unknown>;
  /** What the hit's snippet is made from (snippet.ts), once the page is known. */
  text: string;
  /** Its words, when already known (memory.ts). */
  words?: WordBounds | undefined;
}

export interface RankQuery {
  scope: Scope;
  plan: QueryPlan & { tsquery: string };
  filter: SearchFilter | undefined;
  after: CursorPosition | undefined;
  offset: number;
  limit: number;
  /**
   * Only these document ordinals (ascending) can match (phrase.ts): they are looked up one by one
   * instead of matched through the GIN index, and checked and scored the same way.
   */
  ords?: number[] | undefined;
}

/**
 * One statement: matching through the GIN index, BM25F over every match (rank.ts), the keyset or
 * offset page ordered by (score desc, id), and the text of each hit of the page only (for its snippet).
 */
export async function rankDocuments(db: Db, rq: RankQuery): Promise<RankedRow[]> {
  const { accountId: a, collection: c } = rq.scope;
  const { plan, after } = rq;
  const tsquery = sql`${plan.tsquery}::tsquery`;
  const matches = sql`d.tsv @@ ${tsquery} and ${filterSql(rq.filter)}`;
  const keyset =
    after?.score === undefined
      ? sql`true`
      : sql`(s.score < ${after.score}::float8 or (s.score = ${after.score}::float8 and s.id > ${after.id}))`;
  return queryRows<RankedRow>(
    db,
    sql`
    with matched as (
      select d.id, d.tf, d.tn, d.bn
      from ${
        rq.ords
          ? sql`unnest(${`{${rq.ords.join(',')}}`}::bigint[]) x(ord) cross join lateral ${scoringSource(
              plan,
              sql`d.account_id = ${a} and d.collection = ${c} and d.ord = x.ord and ${matches}`,
            )}`
          : scoringSource(plan, sql`d.account_id = ${a} and d.collection = ${c} and ${matches}`)
      }
    ),
    scored as (
      select m.id, round((${scoreExpression(plan)})::numeric, ${sql.raw(String(SCORE_DIGITS))})::float8 as score
      from matched m
    ),
    page as materialized (
      select s.id, s.score from scored s where ${keyset}
      order by s.score desc, s.id
      limit ${rq.limit + 1} offset ${rq.offset}
    )
    select p.id, p.score, d.title, d.metadata, ${snippetSourceSql()} as text
    from page p
    cross join lateral (
      select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = p.id
    ) d
    order by p.score desc, p.id`,
  );
}

/**
 * Titles, metadata and snippets of hits already ranked (top-k's proven page), in their order: one
 * statement, in the search's snapshot, so the rows are those the hits were scored on.
 */
export async function pageRows(
  db: Db,
  rq: RankQuery,
  hits: { id: string; score: number }[],
): Promise<RankedRow[]> {
  if (hits.length === 0) return [];
  const { accountId: a, collection: c } = rq.scope;
  const rows = await queryRows<Omit<RankedRow, 'score'>>(
    db,
    sql`
    select d.id, d.title, d.metadata, ${snippetSourceSql()} as text
    from unnest(${textArrayLiteral(hits.map((h) => h.id))}::text[]) x(id)
    cross join lateral (
      select * from search_documents d where d.account_id = ${a} and d.collection = ${c} and d.id = x.id
    ) d`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return hits.map((h) => {
    const row = byId.get(h.id);
    return {
      id: h.id,
      score: h.score,
      title: row?.title ?? '',
      metadata: row?.metadata ?? {},
      text: row?.text ?? '',
    };
  });
}

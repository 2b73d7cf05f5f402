import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { queryRows, type Scope } from './sql';

/**
 * Postgres's own ts_rank ordering over the same matches: not used by the API, kept as the
 * baseline that bench/search/relevance.ts compares BM25F with.
 */
export async function rankByTsRank(db: Db, scope: Scope, query: string, limit: number): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select d.id
        from search_documents d
        join search_collections c on c.account_id = d.account_id and c.name = d.collection
        cross join lateral websearch_to_tsquery(c.language::regconfig, ${query}) q
        where d.account_id = ${scope.accountId} and d.collection = ${scope.collection} and d.tsv @@ q
        order by ts_rank(d.tsv, q) desc, d.id
        limit ${limit}`,
  );
  return rows.map((r) => r.id);
}

import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { searchDocuments } from '../../src/modules/search';
import { analysedRows } from '../../src/modules/search/analyse';
import { rebuildPostings } from '../../src/modules/search/postings';
import { queryRows } from '../../src/modules/search/sql';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { migrateWith, migrationsBefore } from '../helpers/migrations';

describe(`migration 0008 backfills search postings (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('writes the same postings the indexer would, and top-k answers like full scoring at once', async () => {
    const database = await openTestDatabase();
    const before = migrationsBefore('0008_search_postings');
    try {
      const db = database.db;
      await migrateWith(db, before);

      // Documents written as the indexer did before postings existed.
      const a = 'acct_backfill';
      const c = 'old';
      await db.execute(
        sql`insert into accounts (id, email, password_hash) values (${a}, 'b@example.com', 'x')`,
      );
      await db.execute(sql`insert into search_collections (account_id, name) values (${a}, ${c})`);
      const words = ['apple', 'banana', 'cherry', 'damson', 'elder', 'fig', 'grape'];
      const docs = Array.from({ length: 120 }, (_, i) => ({
        id: `d${i}`,
        title: `${words[i % 7]} ${words[(i * 3) % 7]}`,
        body: Array.from({ length: 5 + (i % 13) }, (_, j) => words[(i * j + j) % 7]).join(' '),
      }));
      const source = sql`select x.id, x.title, x.body from jsonb_to_recordset(${JSON.stringify(docs)}::jsonb)
        as x(id text, title text, body text)`;
      await db.execute(sql`
        insert into search_documents (account_id, collection, id, title, body, tsv, tf, title_len, body_len)
        select ${a}, ${c}, r.id, r.title, r.body, r.tsv, r.tf, r.title_len, r.body_len
        from (${analysedRows(source, 'english')}) r`);
      await db.execute(sql`
        insert into search_terms (account_id, collection, term, df)
        select ${a}, ${c}, k, count(*)::int from search_documents d, jsonb_object_keys(d.tf) k group by k`);
      await db.execute(sql`
        update search_collections set doc_count = x.n, title_len_sum = x.tl, body_len_sum = x.bl
        from (select count(*) as n, sum(title_len) as tl, sum(body_len) as bl from search_documents) x`);

      await database.migrate();

      const postings = () =>
        queryRows<{ term: string; doc_id: string; impact: number }>(
          db,
          sql`select term, doc_id, impact::float8 as impact from search_postings
              where account_id = ${a} and collection = ${c} order by term, doc_id`,
        );
      const backfilled = await postings();
      const expected = await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from search_documents d, jsonb_object_keys(d.tf) k`,
      );
      expect(backfilled.length).toBe(expected[0]?.n);
      // The indexer's own rebuild writes exactly the same rows, impacts included.
      await db.transaction(async (tx) => rebuildPostings(tx, { accountId: a, collection: c }));
      expect(await postings()).toEqual(backfilled);

      const ctx = { db } as never;
      for (const query of ['apple', 'banana OR fig', 'cherry grape', '"elder fig"']) {
        const input = { collection: c, query, mode: 'keyword', limit: 5 } as never;
        const strategies: string[] = [];
        const topk = await searchDocuments({
          ctx,
          accountId: a,
          input,
          options: {
            topKMinMatches: 0,
            topKStart: { depth: 4, verify: 8, firstStep: 6 },
            onStrategy: (s) => strategies.push(s.kind),
          },
        });
        const full = await searchDocuments({
          ctx,
          accountId: a,
          input,
          options: { topKMinMatches: Infinity },
        });
        expect(topk.data, query).toEqual(full.data);
        expect(strategies).not.toContain('full');
      }
    } finally {
      rmSync(before, { recursive: true, force: true });
      await database.close();
    }
  }, 120_000);
});

import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { indexDocuments, searchDocuments } from '../../src/modules/search';
import { analysedRows } from '../../src/modules/search/analyse';
import { readAllPostings } from '../../src/modules/search/blocks';
import { convertCollections } from '../../src/modules/search/postings';
import { queryRows } from '../../src/modules/search/sql';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { migrateWith, migrationsBefore } from '../helpers/migrations';
import { startTestServer } from '../helpers/server';

/** A collection of 120 documents written as the indexer did before postings existed (schema before 0008). */
async function writeOldCollection(db: Db, a: string, c: string): Promise<void> {
  await db.execute(sql`insert into accounts (id, email, password_hash) values (${a}, 'b@example.com', 'x')`);
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
}

describe(`postings converted by migrations 0008 and 0013 (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('rebuilds postings as blocks from old data with nothing lost, and top-k answers like full scoring', async () => {
    const database = await openTestDatabase();
    const before = migrationsBefore('0008_search_postings');
    const beforeBlocks = migrationsBefore('0013_search_blocks');
    try {
      const db = database.db;
      await migrateWith(db, before);

      // Documents written as the indexer did before postings existed.
      const a = 'acct_backfill';
      const c = 'old';
      await writeOldCollection(db, a, c);

      // 0008: one posting row per (document, lexeme).
      await migrateWith(db, beforeBlocks);
      const rows = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from search_postings`);
      const lexemes = await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from search_documents d, jsonb_object_keys(d.tf) k`,
      );
      expect(rows[0]?.n).toBe(lexemes[0]?.n);

      // 0013: documents numbered, the old postings dropped, the collection marked for conversion.
      await database.migrate();
      const ords = await queryRows<{ n: number; min: number; max: number; next: number }>(
        db,
        sql`select count(distinct d.ord)::int as n, min(d.ord)::int as min, max(d.ord)::int as max,
              (select next_ord::int from search_collections) as next
            from search_documents d`,
      );
      expect(ords[0]).toEqual({ n: 120, min: 1, max: 120, next: 120 });
      const ctx = { db } as never;
      const search = (query: string, options: object) =>
        searchDocuments({
          ctx,
          accountId: a,
          input: { collection: c, query, mode: 'keyword', limit: 5 } as never,
          options,
        });
      // Before the conversion searches are exact (every match scored: there are no postings yet).
      const early: string[] = [];
      const unconverted = await search('banana OR fig', {
        topKMinMatches: 0,
        onStrategy: (s: { kind: string }) => early.push(s.kind),
      });
      expect(early).toEqual(['full']);

      expect(await convertCollections(db)).toBe(1);
      expect(await convertCollections(db)).toBe(0);
      const stored = await queryRows<{
        ord: number;
        tf: Record<string, [number, number]>;
        tl: number;
        bl: number;
      }>(db, sql`select ord::float8 as ord, tf, title_len as tl, body_len as bl from search_documents`);
      const expected = stored
        .flatMap((d) =>
          Object.entries(d.tf).map(([term, [tt, tb]]) => `${term} ${d.ord} ${tt} ${tb} ${d.tl} ${d.bl}`),
        )
        .sort();
      const converted = (await readAllPostings(db, { accountId: a, collection: c }))
        .map((p) => `${p.term} ${p.ord} ${p.tt} ${p.tb} ${p.tl} ${p.bl}`)
        .sort();
      expect(converted).toEqual(expected);
      expect((await search('banana OR fig', { topKMinMatches: Infinity })).data).toEqual(unconverted.data);

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

      // Writes after the conversion continue the ordinals; a replaced document's old postings are dead.
      await indexDocuments({
        ctx,
        scope: { accountId: a, collection: c },
        documents: [
          { id: 'new', title: 'apple', body: 'fig fig', metadata: {} },
          { id: 'd0', title: 'grape', body: 'grape apple', metadata: {} },
        ] as never,
      });
      const written = await queryRows<{ id: string; ord: number }>(
        db,
        sql`select id, ord::int as ord from search_documents where id in ('new', 'd0') order by ord`,
      );
      expect(written).toEqual([
        { id: 'new', ord: 121 },
        { id: 'd0', ord: 122 },
      ]);
      for (const query of ['apple', 'grape', 'fig OR cherry']) {
        const topk = await search(query, {
          topKMinMatches: 0,
          topKStart: { depth: 4, verify: 8, firstStep: 6 },
        });
        expect(topk.data, query).toEqual((await search(query, { topKMinMatches: Infinity })).data);
      }
    } finally {
      rmSync(before, { recursive: true, force: true });
      rmSync(beforeBlocks, { recursive: true, force: true });
      await database.close();
    }
  }, 120_000);
  it('converts in the background once the server listens: ready at once, exact before, after and on a retry', async () => {
    const database = await openTestDatabase();
    const before = migrationsBefore('0008_search_postings');
    let opened: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let attempts = 0;
    let firstFailed: () => void = () => {};
    const failed = new Promise<void>((resolve) => {
      firstFailed = resolve;
    });
    try {
      await migrateWith(database.db, before);
      const a = 'acct_backfill';
      const c = 'old';
      await writeOldCollection(database.db, a, c);
      const server = await startTestServer({
        database,
        searchHooks: {
          // The first pass fails (as on a database outage); the next one waits until the test lets it go.
          beforeConversion: async () => {
            attempts++;
            if (attempts === 1) {
              firstFailed();
              throw new Error('simulated outage');
            }
            await held;
          },
        },
      });
      try {
        const ctx = server.services.ctx;
        const references = async () =>
          (
            await queryRows<{ rt: number | null }>(
              ctx.db,
              sql`select impact_title_avg as rt from search_collections where account_id = ${a} and name = ${c}`,
            )
          )[0]?.rt;
        const search = (query: string, onStrategy?: (s: { kind: string }) => void) =>
          searchDocuments({
            ctx,
            accountId: a,
            input: { collection: c, query, mode: 'keyword', limit: 5 } as never,
            options: {
              topKMinMatches: 0,
              topKStart: { depth: 4, verify: 8, firstStep: 6 },
              ...(onStrategy && { onStrategy }),
            },
          });
        await failed;
        // Still serving, and ready, with the conversion failed once and then held: readiness does not wait for it.
        const ready = await fetch(`${server.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { status: string }).status).toBe('ready');
        await server.services.searchMaintenance.sweep();
        expect(attempts).toBe(2);
        expect(await references()).toBeNull();
        const queries = ['apple', 'banana OR fig', 'cherry grape', '"elder fig"'];
        const early: string[] = [];
        const unconverted = [];
        for (const q of queries) unconverted.push((await search(q, (s) => early.push(s.kind))).data);
        expect(new Set(early)).toEqual(new Set(['full']));

        opened();
        await server.services.searchMaintenance.whenConverted();
        expect(await references()).not.toBeNull();
        const late: string[] = [];
        for (const [i, q] of queries.entries()) {
          expect((await search(q, (s) => late.push(s.kind))).data, q).toEqual(unconverted[i]);
        }
        expect(late).not.toContain('full');
      } finally {
        opened();
        await server.close();
      }
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
  }, 120_000);
});

/**
 * Relevance on the CACM collection (../shared/corpora/cacm): title and abstract indexed through
 * POST /api/documents, every judged query sent as typed to POST /api/search with limit 100, scored
 * by nDCG@10 (binary gains, log2 discount) and recall@100, and the queries that found nothing
 * counted; for each ranking variant, for plain BM25 computed in the same run over the lexemes
 * Postgres produced for the same text (bm25-reference.ts), and for SQLite FTS5's bm25() (fts5.ts).
 *   cd server && npx tsx ../bench/search/cacm.ts [--pglite] [--no-ablations]
 */
// The server's own drizzle (one module instance with the server's), as bench/ has no dependencies of its own.
import { sql } from '../../server/node_modules/drizzle-orm/index.js';
import { searchDocuments } from '../../server/src/modules/search';
import type { SearchOptions } from '../../server/src/modules/search/search';
import { queryRows } from '../../server/src/modules/search/sql';
import { Bm25Reference } from './bm25-reference';
import { type CacmQuery, readCacm } from './cacm-corpus';
import { Fts5Reference } from './fts5';
import { mean, ndcgAt, recallAt } from './metrics';
import { database, startBench } from './setup';

const { documents, queries } = readCacm();
const bench = await startBench();
const collection = 'cacm';
const db = bench.server.services.ctx.db;

/** Request fields per variant; each runs every judged query as typed. */
const variants: [string, Record<string, unknown>][] = [
  ['keyword (default)', {}],
  ['keyword, operator "and"', { operator: 'and' }],
  ['fuzzy', { mode: 'fuzzy' }],
];
/** Ablations of the default, run in process on the same database (options the API does not expose). */
const ablations: [string, SearchOptions][] = [
  [
    'feedback (RM3), 10 documents, 10 terms, λ 0.5',
    { feedback: { docs: 10, terms: 10, originalWeight: 0.5 } },
  ],
  ['feedback, 5 documents, 10 terms, λ 0.5', { feedback: { docs: 5, terms: 10, originalWeight: 0.5 } }],
  ['feedback, 10 documents, 20 terms, λ 0.5', { feedback: { docs: 10, terms: 20, originalWeight: 0.5 } }],
  ['feedback, 10 documents, 10 terms, λ 0.7', { feedback: { docs: 10, terms: 10, originalWeight: 0.7 } }],
  ['default, 16 scored terms at most', { maxScoredTerms: 16 }],
  ['default, 64 scored terms at most', { maxScoredTerms: 64 }],
];

interface Scores {
  ndcg: number;
  recall: number;
  empty: number;
  failed: number;
}

async function score(run: (q: CacmQuery) => Promise<string[] | undefined>): Promise<Scores> {
  const ndcg: number[] = [];
  const recall: number[] = [];
  let empty = 0;
  let failed = 0;
  for (const q of queries) {
    const ranked = await run(q);
    if (ranked === undefined) failed++;
    if (!ranked?.length) empty++;
    ndcg.push(ndcgAt(10, ranked ?? [], q.judgements));
    recall.push(recallAt(100, ranked ?? [], q.judgements));
  }
  return { ndcg: mean(ndcg), recall: mean(recall), empty, failed };
}

try {
  const started = performance.now();
  for (let i = 0; i < documents.length; i += 500) {
    await bench.post('/api/documents', {
      collection,
      documents: documents.slice(i, i + 500).map((d) => ({ id: d.id, title: d.title, text: d.text })),
    });
  }
  bench.analyze();
  console.log(
    `CACM: ${documents.length} documents (${documents.filter((d) => d.text === '').length} title only), ` +
      `${queries.length} judged queries, ${database()}, indexed in ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
      new Date().toISOString(),
  );

  const rows: [string, Scores, number][] = [];
  // The reference: plain BM25 over the analysed lexemes of the same documents and queries.
  const indexed = await queryRows<{ id: string; tf: Record<string, [number, number]> }>(
    db,
    sql`select id, tf from search_documents where account_id = ${bench.accountId} and collection = ${collection}`,
  );
  const reference = new Bm25Reference(
    indexed.map((d) => {
      const tf = new Map(Object.entries(d.tf).map(([t, [a, b]]) => [t, a + b] as const));
      return { id: d.id, tf, length: [...tf.values()].reduce((x, y) => x + y, 0) };
    }),
  );
  const lexemes = async (text: string) =>
    (
      await queryRows<{ lexeme: string }>(db, sql`select lexeme from unnest(to_tsvector('english', ${text}))`)
    ).map((r) => r.lexeme);
  let t0 = performance.now();
  rows.push([
    'plain BM25 reference (in memory)',
    await score(async (q) => reference.search(await lexemes(q.text), 100)),
    (performance.now() - t0) / queries.length,
  ]);

  // The reference engine of issue 43: SQLite FTS5's bm25() over the same title and text, the query's
  // words ORed (fts5.ts). The year is not used here.
  const fts = new Fts5Reference();
  try {
    fts.add(documents.map((d) => ({ id: d.id, title: d.title, text: d.text, metadata: { year: 0 } })));
    t0 = performance.now();
    rows.push([
      'SQLite FTS5, bm25() (title 3, porter)',
      await score(async (q) => fts.search({ words: [q.text] }, 100)),
      (performance.now() - t0) / queries.length,
    ]);
  } finally {
    fts.close();
  }

  for (const [label, fields] of variants) {
    t0 = performance.now();
    const result = await score(async (q) => {
      try {
        const res = (await bench.post('/api/search', {
          collection,
          query: q.text,
          limit: 100,
          ...fields,
        })) as {
          data: { id: string }[];
        };
        return res.data.map((d) => d.id);
      } catch (error) {
        console.log(`  ${label}, query ${q.id}: ${(error as Error).message.slice(0, 160)}`);
        return undefined;
      }
    });
    rows.push([label, result, (performance.now() - t0) / queries.length]);
  }

  // --no-ablations: the API's rankings only (the ablations take most of an hour on PGlite under load).
  for (const [label, options] of process.argv.includes('--no-ablations') ? [] : ablations) {
    t0 = performance.now();
    const result = await score(async (q) => {
      const res = await searchDocuments({
        ctx: bench.server.services.ctx,
        accountId: bench.accountId,
        input: { collection, query: q.text, limit: 100, mode: 'keyword', operator: 'or' },
        options,
      });
      return res.data.map((d) => d.id);
    });
    rows.push([label, result, (performance.now() - t0) / queries.length]);
  }

  console.log('\n| Ranking | nDCG@10 | recall@100 | empty queries | refused | mean ms a query |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [label, s, ms] of rows) {
    console.log(
      `| ${label} | ${s.ndcg.toFixed(3)} | ${s.recall.toFixed(3)} | ${s.empty} of ${queries.length} | ${s.failed} | ${ms.toFixed(1)} |`,
    );
  }
} finally {
  await bench.close();
}

/**
 * Relevance on the man-pages test collection (see manpages.ts): nDCG@10 and recall@100 for the
 * query as typed (ranked OR, the default), with every word required (operator "and"), for the same
 * words joined by OR, and for plain ts_rank over the OR query as a baseline.
 *   cd server && npx tsx ../bench/search/relevance.ts [--pglite]
 */
import { rankByTsRank } from '../../server/src/modules/search/baseline';
import { buildManpagesFixture, type FixtureQuery } from './manpages';
import { mean, ndcgAt, recallAt } from './metrics';
import { database, startBench } from './setup';

const fixture = buildManpagesFixture();
const bench = await startBench();
const collection = 'manpages';
try {
  for (let i = 0; i < fixture.documents.length; i += 100) {
    await bench.post('/api/documents', { collection, documents: fixture.documents.slice(i, i + 100) });
  }
  bench.analyze();
  const orQuery = (text: string) => (text.match(/[\p{L}\p{N}_]+/gu) ?? []).join(' OR ');
  const viaApi = async (query: string, mode = 'keyword', operator = 'or') => {
    const res = (await bench.post('/api/search', { collection, query, mode, operator, limit: 100 })) as {
      data: { id: string }[];
    };
    return res.data.map((d) => d.id);
  };
  const scope = { accountId: bench.accountId, collection };
  const viaTsRank = (query: string) => rankByTsRank(bench.server.services.ctx.db, scope, query, 100);
  const runs: [string, (q: FixtureQuery) => Promise<string[]>][] = [
    ['BM25F, query as typed (ranked OR)', (q) => viaApi(q.text)],
    ['BM25F, query as typed, operator "and"', (q) => viaApi(q.text, 'keyword', 'and')],
    ['BM25F, words joined by OR', (q) => viaApi(orQuery(q.text))],
    ['ts_rank baseline, words joined by OR', (q) => viaTsRank(orQuery(q.text))],
    ['BM25F fuzzy mode, query as typed', (q) => viaApi(q.text, 'fuzzy')],
  ];
  // Fuzzy expansion widens every query, so it runs on a sample (every 4th query) to keep the run short.
  const sampleFor = (label: string) =>
    label.includes('fuzzy') ? fixture.queries.filter((_, i) => i % 4 === 0) : fixture.queries;
  console.log(
    `${fixture.source}: ${fixture.documents.length} documents, ${fixture.queries.length} queries, ${database()}`,
  );
  for (const [label, run] of runs) {
    const ndcg: number[] = [];
    const recall: number[] = [];
    const queries = sampleFor(label);
    for (const query of queries) {
      const ranked = await run(query);
      ndcg.push(ndcgAt(10, ranked, query.judgements));
      recall.push(recallAt(100, ranked, query.judgements));
    }
    console.log(
      `${label.padEnd(40)} nDCG@10 ${mean(ndcg).toFixed(3)}  recall@100 ${mean(recall).toFixed(3)}  (${queries.length} queries)`,
    );
  }
} finally {
  await bench.close();
}

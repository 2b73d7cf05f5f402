/**
 * Indexes 100,000 synthetic documents through POST /api/documents (batches of 500), then measures
 * POST /api/search latency end to end over HTTP for rare terms, common terms, two-term queries,
 * phrases, fuzzy queries, filtered queries, questions and pasted paragraphs (ranked OR).
 *   cd server && npx tsx ../bench/search/throughput-latency.ts [--docs=100000] [--pglite] [--keep=NAME]
 * `--only=a,b`: only the classes whose label starts with a or b.
 * `--keep=NAME` (PostgreSQL): the database NAME is kept; a later run with the same name and as many
 * documents skips loading and measures the queries again (the indexing figures are then not printed).
 */
import { cpus } from 'node:os';
import { syntheticDocument } from './corpus';
import { percentile } from './metrics';
import { queryClasses } from './query-classes';
import { database, startBench } from './setup';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const total = arg('docs', 100_000);
const perClass = arg('queries', 200);
const batch = 500;
const collection = 'bench';

const bench = await startBench(collection);
try {
  console.log(`${database()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}`);
  const started = performance.now();
  const loaded = bench.existing >= total;
  if (loaded) console.log(`reusing the kept database: ${bench.existing} documents already indexed`);
  else if (bench.existing > 0)
    throw new Error(`the kept database holds ${bench.existing} documents, not ${total}`);
  // Each batch POST's latency: a write that paid a merge inline shows in the tail.
  const writes: number[] = [];
  for (let i = 0; !loaded && i < total; i += batch) {
    const documents = Array.from({ length: Math.min(batch, total - i) }, (_, j) => syntheticDocument(i + j));
    const sent = performance.now();
    await bench.post('/api/documents', { collection, documents });
    writes.push(performance.now() - sent);
    if ((i / batch) % 40 === 39) {
      const s = (performance.now() - started) / 1000;
      console.log(`  ${i + batch} documents in ${s.toFixed(0)} s`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  // Merges run in the background: the index is settled once the last one due is done.
  await bench.server.services.searchMaintenance.idle();
  const settled = (performance.now() - started) / 1000;
  if (!loaded) {
    bench.analyze();
    console.log(
      `indexed ${total} documents in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(0)} documents/s` +
        ` (merges done ${(settled - seconds).toFixed(1)} s later)`,
    );
    const sorted = [...writes].sort((x, y) => x - y);
    const ms = (p: number) => percentile(sorted, p).toFixed(0);
    console.log(
      `batch POST latency (${batch} documents): p50 ${ms(50)} ms, p99 ${ms(99)} ms, max ${ms(100)} ms`,
    );
    // Every 8th batch after the first (which builds the postings) makes a merge due: inline, it paid for it.
    const due = writes.filter((_, i) => i > 0 && i % 8 === 0).sort((x, y) => x - y);
    console.log(
      `  the ${due.length} batches that made a merge due: p50 ${percentile(due, 50).toFixed(0)} ms`,
    );
  }
  // Index size against the documents table (table, TOAST and indexes of each).
  const sizes = await bench.sizes(['search_documents', 'search_postings', 'search_blocks']);
  const documentsSize = sizes.search_documents ?? 0;
  for (const [table, bytes] of Object.entries(sizes)) {
    if (table === 'search_documents') continue;
    console.log(
      `${table}: ${(bytes / 2 ** 20).toFixed(1)} MB, ${(bytes / total).toFixed(0)} bytes a document, ${(bytes / Math.max(documentsSize, 1)).toFixed(2)}× search_documents (${(documentsSize / 2 ** 20).toFixed(1)} MB)`,
    );
  }

  const classes = queryClasses(total);
  // --only=phrase,paragraph: the classes whose label starts with one of these (iterating on a kept database).
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const all: number[] = [];
  for (const [label, make] of classes) {
    if (only && !only.some((o) => label.startsWith(o))) continue;
    const times: number[] = [];
    let timeouts = 0;
    for (let i = 0; i < perClass + 10; i++) {
      const t0 = performance.now();
      try {
        await bench.post('/api/search', { collection, limit: 10, ...make() });
      } catch (err) {
        // A search stopped at its time limit (503 search_timeout) counts, at the time it took.
        if (!String(err).includes('search_timeout')) throw err;
        if (i >= 10) timeouts++;
      }
      if (i >= 10) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    all.push(...times);
    console.log(
      `${label.padEnd(16)} p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms  (${perClass} queries${timeouts > 0 ? `, ${timeouts} stopped at the time limit` : ''})`,
    );
  }
  all.sort((a, b) => a - b);
  console.log(
    `all classes      p50 ${percentile(all, 50).toFixed(1)} ms  p95 ${percentile(all, 95).toFixed(1)} ms`,
  );
  // The same tables rewritten without the free space that deletes and merges left (autovacuum
  // would let later writes reuse it): what the live data takes.
  const compacted = loaded
    ? {}
    : await bench.sizes(['search_documents', 'search_postings', 'search_blocks'], true);
  for (const [table, bytes] of Object.entries(compacted)) {
    console.log(`after VACUUM FULL ${table}: ${(bytes / 2 ** 20).toFixed(1)} MB`);
  }
} finally {
  await bench.close();
}

/**
 * Every query shape a user can type (issue 43), on Tessera over HTTP and on SQLite FTS5 (fts5.ts) in
 * the same run, over the same documents (shapes-corpus.ts: CACM's abstracts joined three at a time,
 * `--docs` of them) and the same queries, at limits 10 and 100. Per shape: p50 and p95 of each engine
 * (the median over `--rounds` of each round's figure; the first query of a shape and limit warms the
 * caches and is not counted), Tessera's p95 ÷ FTS5's, how many answered 5xx and how many were
 * approximate; and both engines' indexing throughput (Tessera's only on a fresh load).
 *   cd server && npx tsx ../bench/search/shapes.ts [--docs=30000] [--queries=10] [--rounds=3] [--pglite]
 *     [--keep=NAME] [--only=common,phrase]
 */
import { cpus, loadavg } from 'node:os';
import { Fts5Reference } from './fts5';
import { percentile } from './metrics';
import { database, startBench } from './setup';
import { shapeDocument, shapes } from './shapes-corpus';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const total = arg('docs', 30_000);
const perShape = arg('queries', 10);
const rounds = arg('rounds', 3);
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const collection = 'shapes';
const BATCH = 500;

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000))} documents/s`;

const bench = await startBench(collection);
const fts = new Fts5Reference();
try {
  console.log(
    `${database()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0]?.toFixed(1)}, ` +
      `Node ${process.version}, ${new Date().toISOString()}`,
  );
  if (bench.existing > 0 && bench.existing !== total)
    throw new Error(`the kept database holds ${bench.existing} documents, not ${total}`);
  let tesseraMs = 0;
  let ftsMs = 0;
  for (let i = 0; i < total; i += BATCH) {
    const documents = Array.from({ length: Math.min(BATCH, total - i) }, (_, j) => shapeDocument(i + j));
    let t0 = performance.now();
    if (bench.existing === 0) {
      await bench.post('/api/documents', { collection, documents });
      tesseraMs += performance.now() - t0;
    }
    t0 = performance.now();
    fts.add(documents);
    ftsMs += performance.now() - t0;
  }
  if (bench.existing === 0) {
    const t0 = performance.now();
    await bench.server.services.searchMaintenance.idle();
    tesseraMs += performance.now() - t0;
    bench.analyze();
  }
  console.log(
    `indexing ${total} documents in batches of ${BATCH}: Tessera ` +
      (bench.existing === 0
        ? `${rate(total, tesseraMs)} (HTTP, until background merges finished)`
        : 'not measured (kept database reused)') +
      `, FTS5 ${rate(total, ftsMs)} (in process)`,
  );

  const list = shapes().filter((s) => !only || only.some((o) => s.label.startsWith(o)));
  type Figures = {
    t50: number[];
    t95: number[];
    f50: number[];
    f95: number[];
    failed: number;
    approx: number;
  };
  const figures = new Map<string, Figures>();
  for (let round = 0; round < rounds; round++) {
    for (const limit of [10, 100]) {
      for (const shape of list) {
        const key = `${shape.label}|${limit}`;
        const f = figures.get(key) ?? { t50: [], t95: [], f50: [], f95: [], failed: 0, approx: 0 };
        figures.set(key, f);
        const tessera: number[] = [];
        const reference: number[] = [];
        for (let i = 0; i <= perShape; i++) {
          const { request, reference: q } = shape.make(i);
          let t0 = performance.now();
          try {
            const res = (await bench.post('/api/search', { collection, limit, ...request })) as {
              approximate?: boolean;
            };
            if (i > 0 && res.approximate) f.approx++;
          } catch (err) {
            if (!/→ 5\d\d/.test(String(err))) throw err;
            if (i > 0) f.failed++;
          }
          if (i > 0) tessera.push(performance.now() - t0);
          t0 = performance.now();
          fts.search(q, limit);
          if (i > 0) reference.push(performance.now() - t0);
        }
        tessera.sort((a, b) => a - b);
        reference.sort((a, b) => a - b);
        f.t50.push(percentile(tessera, 50));
        f.t95.push(percentile(tessera, 95));
        f.f50.push(percentile(reference, 50));
        f.f95.push(percentile(reference, 95));
      }
    }
  }
  console.log(
    `\n${perShape} queries a shape and limit, median of ${rounds} rounds; load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log('| shape | limit | Tessera p50 / p95 ms | FTS5 p50 / p95 ms | p95 ratio | 5xx | approximate |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const limit of [10, 100]) {
    for (const shape of list) {
      const f = figures.get(`${shape.label}|${limit}`) as Figures;
      const [t50, t95, f50, f95] = [f.t50, f.t95, f.f50, f.f95].map(median) as [
        number,
        number,
        number,
        number,
      ];
      const queries = perShape * rounds;
      console.log(
        `| ${shape.label} | ${limit} | ${t50.toFixed(1)} / ${t95.toFixed(1)} | ${f50.toFixed(1)} / ${f95.toFixed(1)} | ` +
          `${(t95 / Math.max(f95, 0.1)).toFixed(1)}× | ${f.failed} of ${queries} | ${f.approx} |`,
      );
    }
  }
} finally {
  fts.close();
  await bench.close();
}

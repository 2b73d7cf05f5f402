/**
 * The CPU each query shape costs (issue 43), Tessera beside SQLite FTS5, on a machine loaded by others: wall-clock
 * times there are mostly the scheduler's, the CPU a search consumes much less so. The shapes corpus and queries
 * of shapes.ts; per shape and limit, `process.cpuUsage()` of this process (the server and the HTTP client sending
 * the searches, as shapes.ts's wall clock counts both) over 3 × the queries after each was sent once (the second
 * search of a collection's version loads its in-memory index), and FTS5's for the same queries in process.
 *   cd server && npx tsx ../bench/search/shapes-cpu.ts [--pglite] [--docs=3000] [--queries=10]
 */
import { cpuUsage } from 'node:process';
import { Fts5Reference } from './fts5';
import { startBench } from './setup';
import { shapeDocument, shapes } from './shapes-corpus';

const flag = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const total = flag('docs', 3000);
const perShape = flag('queries', 10);
const ROUNDS = 3;
const collection = 'shapes';
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};

const bench = await startBench(collection);
const fts = new Fts5Reference();
try {
  for (let i = 0; i < total; i += 500) {
    const documents = Array.from({ length: Math.min(500, total - i) }, (_, j) => shapeDocument(i + j));
    await bench.post('/api/documents', { collection, documents });
    fts.add(documents);
  }
  await bench.server.services.searchMaintenance.idle();
  console.log(
    '| shape | limit | Tessera CPU ms a search | FTS5 CPU ms | ratio |\n| --- | --- | --- | --- | --- |',
  );
  for (const limit of [10, 100]) {
    for (const shape of shapes()) {
      const search = (i: number) =>
        bench.post('/api/search', { collection, limit, ...shape.make(i).request });
      for (let i = 0; i <= perShape; i++) await search(i);
      let t0 = cpuMs();
      for (let r = 0; r < ROUNDS; r++) for (let i = 1; i <= perShape; i++) await search(i);
      const tessera = (cpuMs() - t0) / (ROUNDS * perShape);
      t0 = cpuMs();
      for (let r = 0; r < ROUNDS; r++)
        for (let i = 1; i <= perShape; i++) fts.search(shape.make(i).reference, limit);
      const reference = (cpuMs() - t0) / (ROUNDS * perShape);
      console.log(
        `| ${shape.label} | ${limit} | ${tessera.toFixed(2)} | ${reference.toFixed(2)} | ${(tessera / reference).toFixed(1)}× |`,
      );
    }
  }
} finally {
  fts.close();
  await bench.close();
}

/**
 * What writes cost (issue 43 item 2), Tessera beside SQLite FTS5 (fts5.ts) in the same run on the same
 * documents (shapes-corpus.ts): bulk indexing throughput (`--docs` in batches of 500), a batch of 100
 * documents written into the loaded collection, and one large document (~100 KB, CACM's abstracts joined).
 * Tessera over HTTP (auth, rate limit, JSON included) and, with `--profile`, in process with each
 * statement of a write timed, so a change to the write path can be judged per statement. The median of
 * `--rounds` for the batch and the large document; background merges are waited for between rounds
 * (they are not the write's cost, but they share the machine). Beside each wall-clock figure, the CPU the write
 * consumed (cpuMs), which a machine loaded by others disturbs far less.
 *   cd server && npx tsx ../bench/search/writes.ts [--docs=5000] [--rounds=7] [--pglite] [--profile]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { indexDocuments } from '../../server/src/modules/search';
import { Fts5Reference, type ReferenceDocument } from './fts5';
import { percentile } from './metrics';
import { database, startBench } from './setup';
import { shapeDocument } from './shapes-corpus';
import { timedDb } from './timed-db';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const total = arg('docs', 5_000);
const rounds = arg('rounds', 7);
const profile = process.argv.includes('--profile');
const collection = 'writes';
const BULK_BATCH = 500;
const BATCH = 100;
const LARGE_BYTES = 100_000;

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** A document of about LARGE_BYTES: consecutive corpus documents' text joined, a new id each round. */
function largeDocument(round: number): ReferenceDocument {
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < LARGE_BYTES; i++) {
    const text = shapeDocument(1_000_000 + round * 1_000 + i).text;
    parts.push(text);
    bytes += text.length + 1;
  }
  return { id: `large${round}`, title: 'A long report', text: parts.join(' '), metadata: { year: 1980 } };
}

const batchOf = (round: number) =>
  Array.from({ length: BATCH }, (_, j) => {
    const d = shapeDocument(total + round * BATCH + j);
    return { ...d, id: `b${round}-${d.id}` };
  });

/**
 * CPU time used so far, in ms: this process's (the server, and PGlite when embedded) and, on PostgreSQL, that of
 * every backend connected to the bench's database (/proc/PID/schedstat, in ns). Wall-clock times of a write swing
 * 2-3× on a machine loaded by others; the CPU a write consumes does much less, so `--cpu` compares that.
 */
function cpuMs(database: string | undefined): number {
  const own = process.cpuUsage();
  let ms = (own.user + own.system) / 1000;
  if (!database) return ms;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
      ms += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      // The process ended meanwhile.
    }
  }
  return ms;
}

const bench = await startBench();
const dbName = bench.server.databaseUrl ? new URL(bench.server.databaseUrl).pathname.slice(1) : undefined;
const fts = new Fts5Reference();
const services = bench.server.services;
try {
  console.log(
    `${database()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0]?.toFixed(1)}, ` +
      `Node ${process.version}, ${new Date().toISOString()}`,
  );
  let tesseraMs = 0;
  let ftsMs = 0;
  // Tessera's: everything from the first write to the end of the background work, less FTS5's (synchronous, so
  // nothing else runs on this thread meanwhile).
  const bulkCpu = { tessera: -cpuMs(dbName), fts: 0 };
  for (let i = 0; i < total; i += BULK_BATCH) {
    const documents = Array.from({ length: Math.min(BULK_BATCH, total - i) }, (_, j) => shapeDocument(i + j));
    let t0 = performance.now();
    await bench.post('/api/documents', { collection, documents });
    tesseraMs += performance.now() - t0;
    const cpu = cpuMs(undefined);
    t0 = performance.now();
    fts.add(documents);
    ftsMs += performance.now() - t0;
    bulkCpu.fts += cpuMs(undefined) - cpu;
  }
  const t0 = performance.now();
  await services.searchMaintenance.idle();
  const mergeTail = performance.now() - t0;
  bulkCpu.tessera += cpuMs(dbName) - bulkCpu.fts;
  const bulk = { tessera: total / ((tesseraMs + mergeTail) / 1000), fts: total / (ftsMs / 1000) };

  // One write at a time, with the background work of the previous one finished.
  const timeWrites = async (make: (round: number) => ReferenceDocument[]) => {
    const tessera: number[] = [];
    const reference: number[] = [];
    const tesseraCpu: number[] = [];
    const referenceCpu: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const documents = make(round);
      await services.searchMaintenance.idle();
      let cpu = cpuMs(dbName);
      let start = performance.now();
      await bench.post('/api/documents', { collection, documents });
      tessera.push(performance.now() - start);
      tesseraCpu.push(cpuMs(dbName) - cpu);
      cpu = cpuMs(undefined);
      start = performance.now();
      fts.add(documents);
      reference.push(performance.now() - start);
      referenceCpu.push(cpuMs(undefined) - cpu);
    }
    return {
      tessera: median(tessera),
      fts: median(reference),
      tesseraCpu: median(tesseraCpu),
      ftsCpu: median(referenceCpu),
    };
  };
  const batch = await timeWrites(batchOf);
  const large = await timeWrites((round) => [largeDocument(round)]);

  const largeBytes = largeDocument(0).text.length;
  console.log(
    `\nload ${loadavg()[0]?.toFixed(1)} at the end; median of ${rounds} writes for the last two rows\n`,
  );
  console.log('| write | Tessera | FTS5 | Tessera ÷ FTS5 |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| bulk, ${total} documents in batches of ${BULK_BATCH} | ${Math.round(bulk.tessera)} documents/s | ` +
      `${Math.round(bulk.fts)} documents/s | ${(bulk.fts / bulk.tessera).toFixed(1)}× the time |`,
  );
  console.log(
    `| a batch of ${BATCH} documents into ${total} | ${batch.tessera.toFixed(1)} ms | ${batch.fts.toFixed(1)} ms | ` +
      `${(batch.tessera / batch.fts).toFixed(1)}× |`,
  );
  console.log(
    `| one document of ${Math.round(largeBytes / 1000)} KB | ${large.tessera.toFixed(1)} ms | ${large.fts.toFixed(1)} ms | ` +
      `${(large.tessera / large.fts).toFixed(1)}× |`,
  );
  console.log(
    `(Tessera's bulk figure includes ${Math.round(mergeTail)} ms of background merges after the last write)`,
  );
  console.log(
    `\nCPU a write consumed (median; Tessera: server${dbName ? ' and its PostgreSQL backends' : ' with PGlite'}; FTS5: in process):`,
  );
  for (const [label, r] of [
    [`a batch of ${BATCH}`, batch],
    ['one large document', large],
  ] as const) {
    console.log(
      `| ${label} | ${r.tesseraCpu.toFixed(1)} ms | ${r.ftsCpu.toFixed(1)} ms | ${(r.tesseraCpu / r.ftsCpu).toFixed(1)}× |`,
    );
  }
  console.log(
    `| bulk | ${bulkCpu.tessera.toFixed(0)} ms | ${bulkCpu.fts.toFixed(0)} ms | ${(bulkCpu.tessera / bulkCpu.fts).toFixed(1)}× |`,
  );

  if (profile) {
    // The same writes in process, each statement timed: where a write's time goes.
    const scope = { accountId: bench.accountId, collection };
    for (const [label, make] of [
      [`batch of ${BATCH}`, (r: number) => batchOf(rounds + r)],
      ['large document', (r: number) => [largeDocument(rounds + r)]],
    ] as const) {
      const perStatement: { text: string; ms: number[] }[] = [];
      const totals: number[] = [];
      for (let round = 0; round < rounds; round++) {
        await services.searchMaintenance.idle();
        const timed = timedDb(services.ctx.db);
        const documents = make(round).map((d) => ({
          id: d.id,
          title: d.title,
          body: d.text,
          metadata: d.metadata,
        }));
        const start = performance.now();
        await indexDocuments({ ctx: { db: timed.db }, scope, documents });
        totals.push(performance.now() - start);
        timed.statements.forEach((s, k) => {
          perStatement[k] ??= { text: s.text, ms: [] };
          perStatement[k]?.ms.push(s.ms);
        });
      }
      console.log(`\n${label}, in process: ${median(totals).toFixed(1)} ms (median of ${rounds})`);
      for (const [k, s] of perStatement.entries())
        console.log(`  ${String(k + 1).padStart(2)}. ${median(s.ms).toFixed(1).padStart(7)} ms  ${s.text}`);
    }
  }
} finally {
  fts.close();
  await bench.close();
}

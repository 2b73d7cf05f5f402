/**
 * Where a search's time goes on a small PGlite collection (issue 43, item 3): over HTTP, in process
 * (searchDocuments, each statement timed), and an HTTP request that does no search work
 * (`GET /api/documents/collections/shapes`), per shape, in one run so the ratios compare.
 *   cd server && npx tsx ../bench/search/profile-small.ts --pglite [--docs=3000] [--queries=20] [--only=rare] [--sql]
 */
import { performance } from 'node:perf_hooks';
import { searchDocuments } from '../../server/src/modules/search';
import { percentile } from './metrics';
import { startBench } from './setup';
import { shapeDocument, shapes } from './shapes-corpus';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const total = Number(flag('docs') ?? 3000);
const perShape = Number(flag('queries') ?? 20);
const only = flag('only')?.split(',');
const collection = 'shapes';
const bench = await startBench(collection);
const p = (xs: number[], q: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );
try {
  for (let i = 0; i < total; i += 500) {
    const documents = Array.from({ length: Math.min(500, total - i) }, (_, j) => shapeDocument(i + j));
    await bench.post('/api/documents', { collection, documents });
  }
  await bench.server.services.searchMaintenance.idle();
  const { ctx } = bench.server.services;
  let statements: number[] = [];
  const timed =
    (run: (query: unknown) => Promise<unknown>) =>
    async (query: unknown): Promise<unknown> => {
      const t0 = performance.now();
      try {
        return await run(query);
      } finally {
        statements.push(performance.now() - t0);
      }
    };
  const timedDb = new Proxy(ctx.db, {
    get(target, prop, receiver) {
      // A search from a loaded in-memory index runs its one statement outside a transaction.
      if (prop === 'execute') return timed((q) => (target.execute as (x: unknown) => Promise<unknown>)(q));
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
      return (run: (tx: unknown) => Promise<unknown>) =>
        target.transaction(async (tx) =>
          run(
            new Proxy(tx, {
              get(t, q, r) {
                if (q !== 'execute') return Reflect.get(t, q, r);
                return timed((query) => (t.execute as (x: unknown) => Promise<unknown>)(query));
              },
            }),
          ),
        );
    },
  });
  const get = async () => {
    const t0 = performance.now();
    await fetch(`${bench.server.url}/api/documents/collections/${collection}`, {
      headers: { authorization: `Bearer ${bench.key}` },
    }).then((r) => r.json());
    return performance.now() - t0;
  };
  for (const limit of [10, 100]) {
    for (const shape of shapes()) {
      if (only && !only.some((o) => shape.label.startsWith(o))) continue;
      const http: number[] = [];
      const inproc: number[] = [];
      const gets: number[] = [];
      const perStatement: number[][] = [];
      const paths = new Map<string, number>();
      for (let i = 0; i <= perShape; i++) {
        const { request } = shape.make(i);
        let t0 = performance.now();
        await bench.post('/api/search', { collection, limit, ...request });
        if (i > 0) http.push(performance.now() - t0);
        statements = [];
        let path = '';
        t0 = performance.now();
        await searchDocuments({
          ctx: { db: timedDb },
          accountId: bench.accountId,
          input: { collection, limit, mode: 'keyword', operator: 'or', ...request } as Parameters<
            typeof searchDocuments
          >[0]['input'],
          options: {
            // `--sql`: the SQL path only (the server's memory index left out).
            memory: process.argv.includes('--sql') ? undefined : bench.server.services.searchMemory,
            onStrategy: (s) => {
              path += `${path ? '+' : ''}${s.kind}${'rounds' in s ? s.rounds : ''}${'direct' in s && s.direct ? '(direct)' : ''}`;
            },
          },
        });
        if (i === 0) continue;
        inproc.push(performance.now() - t0);
        paths.set(path, (paths.get(path) ?? 0) + 1);
        statements.forEach((ms, k) => {
          perStatement[k] ??= [];
          perStatement[k]?.push(ms);
        });
        gets.push(await get());
      }
      console.log(
        `${shape.label.padEnd(36)} ${String(limit).padStart(3)}: http p50 ${p(http, 50).toFixed(1)} p95 ${p(http, 95).toFixed(1)}; ` +
          `in process p50 ${p(inproc, 50).toFixed(1)} p95 ${p(inproc, 95).toFixed(1)}; GET p50 ${p(gets, 50).toFixed(1)}; ` +
          `paths ${[...paths].map(([k, n]) => `${k}×${n}`).join(' ')}`,
      );
      console.log(
        `      statements p50: ${perStatement.map((l) => `${p(l, 50).toFixed(1)}(${l.length})`).join(' ')}`,
      );
    }
  }
} finally {
  await bench.close();
}

/**
 * The HTTP path's own cost on PGlite (issue 43, item 3): a request that does no search work,
 * `GET /api/documents/collections/NAME`, timed `--n` times after a warm-up.
 *   cd server && npx tsx ../bench/search/profile-get.ts --pglite [--n=500]
 */
import { performance } from 'node:perf_hooks';
import { percentile } from './metrics';
import { startBench } from './setup';

const n = Number(process.argv.find((a) => a.startsWith('--n='))?.split('=')[1] ?? 500);
const bench = await startBench('tiny');
try {
  await bench.post('/api/documents', { collection: 'tiny', documents: [{ id: 'a', text: 'hello world' }] });
  const times: number[] = [];
  for (let i = 0; i < n + 20; i++) {
    const t0 = performance.now();
    const res = await fetch(`${bench.server.url}/api/documents/collections/tiny`, {
      headers: { authorization: `Bearer ${bench.key}` },
    });
    await res.json();
    if (i >= 20) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `GET ×${n}: p50 ${percentile(times, 50).toFixed(2)} p95 ${percentile(times, 95).toFixed(2)} ms`,
  );
} finally {
  await bench.close();
}

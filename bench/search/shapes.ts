/**
 * The query shapes that used to end in 503 `search_timeout` (issue 43), on a collection built from
 * CACM's abstracts (each document joins three of them, so ~250 words; `--docs` of them), over HTTP
 * at limit 100: many common words joined by OR, quoted pairs of frequent words, a pasted paragraph,
 * an exclusion alone. Each shape is printed beside a reference in the same run (the same words
 * without OR, the paragraph at limit 10), with how many answered 503 and how many were approximate.
 *   cd server && npx tsx ../bench/search/shapes.ts [--docs=30000] [--queries=10] [--pglite] [--keep=NAME]
 */
import { cpus } from 'node:os';
import { readCacm } from './cacm-corpus';
import { rng } from './corpus';
import { percentile } from './metrics';
import { database, startBench } from './setup';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const total = arg('docs', 30_000);
const perShape = arg('queries', 10);
const collection = 'shapes';
const { documents: cacm } = readCacm();
const abstracts = cacm.filter((d) => d.text.split(' ').length >= 40);

const joined = (i: number) => {
  const pick = (k: number) => abstracts[(i * (2 * k + 1) + k * 997) % abstracts.length];
  const parts = [pick(0), pick(1), pick(2)];
  return {
    id: `c${String(i).padStart(6, '0')}`,
    title: parts[0]?.title ?? '',
    text: parts.map((p) => `${p?.title ?? ''}. ${p?.text ?? ''}`).join(' '),
  };
};

// Vocabulary by document frequency over the abstracts (lowercase words of 4+ letters): the common
// words of the queries, and the frequent adjacent pairs for phrases.
const words = (text: string) => text.toLowerCase().match(/[a-z]{4,}/g) ?? [];
const df = new Map<string, number>();
const pairs = new Map<string, number>();
for (const d of abstracts) {
  const ws = words(d.text);
  for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  for (let k = 0; k + 1 < ws.length; k++) {
    const p = `${ws[k]} ${ws[k + 1]}`;
    pairs.set(p, (pairs.get(p) ?? 0) + 1);
  }
}
const common = [...df.entries()]
  .sort((x, y) => y[1] - x[1])
  .slice(0, 120)
  .map(([w]) => w)
  .filter((w) => !['this', 'that', 'with', 'from', 'which', 'these', 'have', 'been', 'there'].includes(w));
const frequentPairs = [...pairs.entries()]
  .filter(([p]) => p.split(' ').every((w) => !['this', 'that', 'with', 'from', 'which'].includes(w)))
  .sort((x, y) => y[1] - x[1])
  .slice(0, 80)
  .map(([p]) => p);

const random = rng(43);
const sample = <T>(from: T[], n: number) => {
  const pool = [...from];
  const out: T[] = [];
  while (out.length < n && pool.length > 0)
    out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T);
  return out;
};
const paragraph = () => {
  const d = abstracts[Math.floor(random() * abstracts.length)];
  const e = abstracts[Math.floor(random() * abstracts.length)];
  return `${d?.text ?? ''} ${e?.text ?? ''}`.split(' ').slice(0, 60).join(' ');
};

type Shape = [label: string, make: (i: number) => Record<string, unknown>];
const memo = new Map<string, Record<string, unknown>>();
const once = (key: string, make: () => Record<string, unknown>) => {
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key) as Record<string, unknown>;
};
const ored = (n: number, i: number) =>
  once(`or${n}:${i}`, () => ({ words: sample(common, n) })).words as string[];
const shapes: Shape[] = [
  ['8 common words', (i) => ({ query: ored(8, i).join(' ') })],
  ['8 common words OR', (i) => ({ query: ored(8, i).join(' OR ') })],
  ['16 common words', (i) => ({ query: ored(16, i).join(' ') })],
  ['16 common words OR', (i) => ({ query: ored(16, i).join(' OR ') })],
  [
    '60-word paragraph, limit 10',
    (i) => ({ query: once(`p:${i}`, () => ({ q: paragraph() })).q, limit: 10 }),
  ],
  ['60-word paragraph, limit 100', (i) => ({ query: once(`p:${i}`, () => ({ q: paragraph() })).q })],
  ['1 quoted frequent pair', () => ({ query: `"${sample(frequentPairs, 1)[0]}"` })],
  [
    '10 quoted frequent pairs',
    (i) => ({
      query: (once(`ph:${i}`, () => ({ p: sample(frequentPairs, 10) })).p as string[])
        .map((p) => `"${p}"`)
        .join(' '),
    }),
  ],
  ['one exclusion (-word)', () => ({ query: `-${sample(common.slice(0, 30), 1)[0]}` })],
  ['16 common words OR, "and"', (i) => ({ query: ored(16, i).join(' OR '), operator: 'and' })],
];

const bench = await startBench(collection);
try {
  console.log(`${database()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}`);
  if (bench.existing > 0 && bench.existing !== total)
    throw new Error(`the kept database holds ${bench.existing} documents, not ${total}`);
  if (bench.existing === 0) {
    const started = performance.now();
    for (let i = 0; i < total; i += 500) {
      const documents = Array.from({ length: Math.min(500, total - i) }, (_, j) => joined(i + j));
      await bench.post('/api/documents', { collection, documents });
    }
    await bench.server.services.searchMaintenance.idle();
    bench.analyze();
    console.log(`indexed ${total} documents in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } else console.log(`reusing the kept database: ${total} documents`);
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  console.log('\n| shape (limit 100 unless said) | p50 ms | p95 ms | 503s | approximate |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [label, make] of shapes) {
    if (only && !only.some((o) => label.startsWith(o))) continue;
    const times: number[] = [];
    let timeouts = 0;
    let approximate = 0;
    for (let i = 0; i < perShape + 1; i++) {
      const t0 = performance.now();
      try {
        const res = (await bench.post('/api/search', { collection, limit: 100, ...make(i) })) as {
          approximate?: boolean;
        };
        if (i > 0 && res.approximate) approximate++;
      } catch (err) {
        if (!String(err).includes('search_timeout')) throw err;
        if (i > 0) timeouts++;
      }
      // The first query of a shape warms the caches and is not counted.
      if (i > 0) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(
      `| ${label} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} | ${timeouts} of ${perShape} | ${approximate} |`,
    );
  }
} finally {
  await bench.close();
}

/**
 * The OWASP Benchmark scorecard for the security analysis (Java 1.2 and Python 0.1, ../shared/corpora).
 *   (cd server && npx tsx ../bench/code-analysis/owasp.ts [--sample=N] [--only=java|python] [--category=sqli]
 *    [--misses=fn|fp] [--project])
 * Each case's file is analysed alone (analysis_type security, in this thread, as the worker would), and the case
 * is flagged when a finding in it carries the case's CWE. --sample=N keeps every N-th case; --misses lists the
 * false negatives or false positives of the run. --project analyses each case together with the Benchmark's own
 * `helpers/` modules as a project (the `files` form), so calls into them resolve; only the case's findings count.
 */
import { cpus } from 'node:os';
import {
  type BenchmarkCase,
  everyNth,
  formatScorecard,
  loadBenchmark,
  loadHelpers,
  runBenchmark,
} from './owasp-score';

const option = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const sample = Number(option('sample') ?? 1);
const only = option('only');
const category = option('category');
const misses = option('misses');
const asProject = process.argv.includes('--project');

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${new Date().toISOString()}`,
);
for (const id of ['java', 'python'] as const) {
  if (only && only !== id) continue;
  const bench = loadBenchmark(id);
  if (!bench) {
    console.log(`${id}: corpus not found under ../shared/corpora, skipped`);
    continue;
  }
  const cases = everyNth(bench.cases, sample).filter((c) => !category || c.category === category);
  const listed: BenchmarkCase[] = [];
  const started = performance.now();
  const helpers = asProject ? loadHelpers(bench) : undefined;
  const card = await runBenchmark(
    bench,
    cases,
    (c, _findings, hit) => {
      if ((misses === 'fn' && c.real && !hit) || (misses === 'fp' && !c.real && hit)) listed.push(c);
    },
    helpers,
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    formatScorecard(
      `\nOWASP Benchmark ${id} (${cases.length} cases${sample > 1 ? `, every ${sample}th` : ''}${helpers ? `, each with the ${helpers.length} helper files as a project` : ''}, ${seconds.toFixed(0)} s)`,
      card,
    ),
  );
  if (misses) console.log(`${misses}: ${listed.map((c) => `${c.name}(${c.category})`).join(' ')}`);
}

/**
 * A/B latency of two revisions of the code analysis, interleaved so that both see the same machine load.
 *   (cd server && npx tsx ../bench/code-analysis/compare.ts <git revision> [--runs 15] [--languages swift,scala])
 * Extracts the revision's server/src and server/grammars (and package.json: ES modules) into a temporary directory (server/node_modules linked), starts one worker pool
 * per side (one worker each), warms both up (8 analyses per language), then alternates one analysis on the old side
 * and one on the working tree's, per language: p50/p95 of each side and the ratio.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '../../server/src/logger';
import { AnalysisPool, DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis';
import { CODE_LANGUAGES } from '../../shared/src/code-analysis';
import { generateFile } from './generate';

const revision = process.argv[2];
if (!revision || revision.startsWith('--')) throw new Error('usage: compare.ts <git revision> [--runs 15]');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt === -1 ? 15 : Number(process.argv[runsAt + 1]);
const languagesAt = process.argv.indexOf('--languages');
const LANGUAGES =
  languagesAt === -1
    ? CODE_LANGUAGES
    : CODE_LANGUAGES.filter((l) => (process.argv[languagesAt + 1] ?? '').split(',').includes(l));
const root = resolve(import.meta.dirname, '../..');

const dir = mkdtempSync(join(tmpdir(), 'tessera-analysis-'));
execSync(
  `git -C ${root} archive ${revision} server/src server/grammars server/package.json server/tsconfig.json | tar -x -C ${dir}`,
);
symlinkSync(join(root, 'server/node_modules'), join(dir, 'server/node_modules'));
const old = (await import(join(dir, 'server/src/modules/code-analysis/index.ts'))) as {
  AnalysisPool: typeof AnalysisPool;
};

const options = { size: 1, timeoutMs: 60_000, maxQueue: 4, logger: createLogger('silent') };
const pools = { old: new old.AnalysisPool(options), new: new AnalysisPool(options) };
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
};

console.log(
  `${revision} vs working tree, ${RUNS} interleaved runs per language, ${new Date().toISOString()}`,
);
console.log('| language | old p50 | old p95 | new p50 | new p95 | new/old p50 |');
console.log('|---|---|---|---|---|---|');
try {
  for (const language of LANGUAGES) {
    const job = {
      code: generateFile(language),
      language,
      filename: undefined,
      analysisType: 'all' as const,
      thresholds: DEFAULT_THRESHOLDS,
    };
    for (let i = 0; i < 8; i += 1) {
      await pools.old.run(job);
      await pools.new.run(job);
    }
    const times = { old: [] as number[], new: [] as number[] };
    for (let i = 0; i < RUNS; i += 1) {
      for (const side of ['old', 'new'] as const) {
        const started = performance.now();
        await pools[side].run(job);
        times[side].push(performance.now() - started);
      }
    }
    const p = (side: 'old' | 'new', q: number) => quantile(times[side], q).toFixed(0);
    console.log(
      `| ${language} | ${p('old', 0.5)} | ${p('old', 0.95)} | ${p('new', 0.5)} | ${p('new', 0.95)} | ${(quantile(times.new, 0.5) / quantile(times.old, 0.5)).toFixed(2)} |`,
    );
  }
} finally {
  await Promise.all([pools.old.close(), pools.new.close()]);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The gosec samples scorecard (../shared/corpora/gosec), scored as gosec-score.ts says, at each confidence.
 *   (cd server && npx tsx ../bench/code-analysis/gosec.ts [--rule=G201] [--misses=fn|fp] [--table=medium])
 * The per-rule table is printed at --table's confidence (low unless given).
 */
import { cpus } from 'node:os';
import type { Finding } from '../../shared/src/code-analysis';
import { analyzeSample, formatGosec, type GosecSample, loadGosec, scoreGosec } from './gosec-score';

const option = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = option('rule');
const misses = option('misses');
const tableAt = option('table') ?? 'low';

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${new Date().toISOString()}`,
);
const corpus = loadGosec();
if (!corpus) {
  console.log('gosec: corpus not found under ../shared/corpora, skipped');
  process.exit(0);
}
const samples = corpus.samples.filter((s) => !only || s.rule === only);
const started = performance.now();
const results: { sample: GosecSample; findings: Finding[] }[] = [];
for (const sample of samples) {
  try {
    results.push({ sample, findings: await analyzeSample(sample) });
  } catch (e) {
    // A sample over the analysis bounds counts as finding nothing.
    console.log(`${sample.rule}: ${(e as Error).message.slice(0, 100)}`);
    results.push({ sample, findings: [] });
  }
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `gosec samples: ${samples.length} (left out: ${corpus.skippedConfig} with a non-default config, ${corpus.skippedNosec} with #nosec / gosec:disable), ${seconds.toFixed(0)} s`,
);
for (const threshold of ['high', 'medium', 'low'] as const)
  console.log(
    formatGosec(`\nmin_confidence ${threshold}`, scoreGosec(results, threshold), threshold === tableAt),
  );
if (misses) {
  for (const { sample, findings } of results) {
    const hit = scoreGosec([{ sample, findings }], 'low')[0];
    if ((misses === 'fn' && hit?.vulnerable && !hit.found) || (misses === 'fp' && hit?.flagged)) {
      console.log(
        `--- ${sample.rule} expected ${sample.expected}: ${findings.map((f) => `${f.line}:${f.rule_id}:${f.cwe}`).join(' ')}`,
      );
      console.log(sample.files.join('\n----\n').slice(0, 1500));
    }
  }
}

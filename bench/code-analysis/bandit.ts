/**
 * The Bandit examples scorecard (../shared/corpora/bandit), scored as bandit-score.ts says, at each confidence.
 *   (cd server && npx tsx ../bench/code-analysis/bandit.ts [--misses])
 */
import { cpus } from 'node:os';
import type { Finding } from '../../shared/src/code-analysis';
import { analyzeExample, type BanditExample, formatBandit, loadBandit, scoreBandit } from './bandit-score';

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${new Date().toISOString()}`,
);
const examples = loadBandit();
if (!examples) {
  console.log('bandit: corpus not found under ../shared/corpora, skipped');
  process.exit(0);
}
const results: { example: BanditExample; findings: Finding[] }[] = [];
for (const example of examples) {
  try {
    results.push({ example, findings: await analyzeExample(example) });
  } catch (e) {
    console.log(`${example.file}: ${(e as Error).message.slice(0, 100)}`);
    results.push({ example, findings: [] });
  }
}
for (const threshold of ['high', 'medium', 'low'] as const)
  console.log(
    formatBandit(`\nmin_confidence ${threshold}`, scoreBandit(results, threshold), threshold === 'low'),
  );
if (process.argv.includes('--misses'))
  for (const { example, findings } of results)
    console.log(
      `${example.file} (${example.expected}): ${findings.map((f) => `${f.line}:${f.rule_id}:${f.severity}:${f.confidence}`).join(' ')}`,
    );

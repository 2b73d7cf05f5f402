/**
 * The Juliet Test Suite for Java 1.3 scorecard (breadth: 112 CWEs of security weaknesses and bugs,
 * ../shared/corpora/juliet-java), scored as the corpus README says (juliet-score.ts).
 *   (cd server && npx tsx ../bench/code-analysis/juliet.ts [--per-cwe=25|all] [--cwe=476,690] [--threat-model=all|web] [--verbose])
 * Up to 25 cases a CWE by default, spread evenly over its sorted cases; --per-cwe=all runs every case. Each case is
 * analysed in this thread as the worker would (analysis_type all): one file alone, several as a project (`files`).
 * The threat model is `all` (Juliet reads files, sockets, databases and the environment as input) unless
 * --threat-model=web. --verbose lists, per CWE, the CWEs of the findings that fell inside bad and good regions, to see what is
 * reported where.
 */
import { cpus } from 'node:os';
import { formatJuliet, loadJuliet, runJuliet } from './juliet-score';

const option = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const perCweOption = option('per-cwe') ?? '25';
const perCwe = perCweOption === 'all' ? Number.POSITIVE_INFINITY : Number(perCweOption);
const only = option('cwe')
  ?.split(',')
  .map((n) => `CWE${n.trim()}_`);
const verbose = process.argv.includes('--verbose');
const threatModel = option('threat-model') === 'web' ? 'web' : 'all';

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${new Date().toISOString()}`,
);
const suite = loadJuliet();
if (!suite) {
  console.log('juliet-java: corpus not found under ../shared/corpora, skipped');
} else {
  const seen = new Map<string, Map<string, number>>();
  const started = performance.now();
  const card = await runJuliet(suite, {
    perCwe,
    threatModel,
    ...(only && { only: (folder: string) => only.some((prefix) => folder.startsWith(prefix)) }),
    onCase: (c, outcome) => {
      if (!verbose) return;
      const key = `CWE-${c.cwe}`;
      const counts = seen.get(key) ?? new Map<string, number>();
      seen.set(key, counts);
      for (const { region, finding } of outcome.inRegions) {
        const label = `${region}:${finding.cwe ?? finding.rule_id}`;
        counts.set(label, (counts.get(label) ?? 0) + 1);
      }
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const cases = card.cwes.reduce((n, s) => n + s.cases, 0);
  console.log(
    formatJuliet(
      `\nJuliet Java 1.3 (${cases} cases, ${Number.isFinite(perCwe) ? `up to ${perCwe}` : 'all'} a CWE, threat model ${threatModel}, ${seconds.toFixed(0)} s)`,
      card,
    ),
  );
  if (verbose)
    for (const [cwe, counts] of seen)
      if (counts.size > 0)
        console.log(
          `${cwe}: ${[...counts.entries()]
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k}×${n}`)
            .join(' ')}`,
        );
}

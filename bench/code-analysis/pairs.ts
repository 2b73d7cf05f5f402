/**
 * Idiomatic vulnerable/safe snippet pairs per language (server/test/fixtures/idiomatic): how many vulnerable
 * snippets get a finding with the pair's CWE on the vulnerable line, and how many safe ones get none.
 *   (cd server && npx tsx ../bench/code-analysis/pairs.ts [--misses] [--language=go])
 */
import { IDIOMATIC_PAIRS } from '../../server/test/fixtures/idiomatic';
import { evaluatePair } from '../../server/test/fixtures/idiomatic/evaluate';

const showMisses = process.argv.includes('--misses');
const only = process.argv.find((a) => a.startsWith('--language='))?.slice('--language='.length);

interface Row {
  pairs: number;
  found: number;
  quiet: number;
  cwes: Set<number>;
}
const rows = new Map<string, Row>();
const misses: string[] = [];
for (const pair of IDIOMATIC_PAIRS) {
  if (only && pair.language !== only) continue;
  const outcome = await evaluatePair(pair);
  const row = rows.get(pair.language) ?? { pairs: 0, found: 0, quiet: 0, cwes: new Set() };
  rows.set(pair.language, row);
  row.pairs += 1;
  row.cwes.add(pair.cwe);
  if (outcome.found) row.found += 1;
  if (outcome.quiet) row.quiet += 1;
  const where = `${pair.language} CWE-${pair.cwe} \`${pair.line}\``;
  if (outcome.parseErrors > 0) misses.push(`${where}: ${outcome.parseErrors} parse errors`);
  if (!outcome.found)
    misses.push(
      `${where}: missed (${outcome.vulnerableFindings.map((f) => `${f.rule_id}@${f.line}`).join(', ') || 'no finding'})`,
    );
  if (outcome.found && !outcome.ruleFound) misses.push(`${where}: found, but not by ${pair.rule}`);
  if (!outcome.quiet)
    misses.push(
      `${where}: safe reported (${outcome.safeFindings.map((f) => `${f.rule_id}@${f.line}`).join(', ')})`,
    );
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(0)}%`);
console.log('| language | pairs | CWEs | vulnerable found | safe not reported |');
console.log('|---|---|---|---|---|');
const total = { pairs: 0, found: 0, quiet: 0 };
for (const [language, row] of [...rows].sort((a, b) => a[0].localeCompare(b[0]))) {
  console.log(
    `| ${language} | ${row.pairs} | ${row.cwes.size} | ${row.found} (${pct(row.found, row.pairs)}) | ${row.quiet} (${pct(row.quiet, row.pairs)}) |`,
  );
  total.pairs += row.pairs;
  total.found += row.found;
  total.quiet += row.quiet;
}
console.log(
  `| all | ${total.pairs} | | ${total.found} (${pct(total.found, total.pairs)}) | ${total.quiet} (${pct(total.quiet, total.pairs)}) |`,
);
if (showMisses) for (const m of misses) console.log(m);

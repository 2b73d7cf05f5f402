/**
 * The family × language coverage table (docs/code-analysis.md, "Coverage by family and language"), computed from the
 * idiomatic pairs. Prints it; with --write, replaces the table between the markers in the docs.
 *   (cd server && npx tsx ../bench/code-analysis/coverage.ts [--write])
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { coverageTable } from '../../server/test/fixtures/idiomatic/coverage';
import { COVERAGE_BEGIN, COVERAGE_END } from '../../server/test/fixtures/idiomatic/coverage-markers';

const table = coverageTable();
if (process.argv.includes('--write')) {
  const path = new URL('../../docs/code-analysis.md', import.meta.url);
  const docs = readFileSync(path, 'utf8');
  const start = docs.indexOf(COVERAGE_BEGIN);
  const end = docs.indexOf(COVERAGE_END);
  if (start === -1 || end === -1) throw new Error('coverage markers not found in docs/code-analysis.md');
  writeFileSync(path, `${docs.slice(0, start + COVERAGE_BEGIN.length)}\n${table}\n${docs.slice(end)}`);
}
console.log(table);

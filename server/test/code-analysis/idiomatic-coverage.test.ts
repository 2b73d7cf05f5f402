/**
 * The family × language coverage table in docs/code-analysis.md is the one the idiomatic pairs give
 * (test/fixtures/idiomatic/coverage.ts): a cell marked covered names the fixture file whose pairs
 * idiomatic.test.ts runs (vulnerable line found, safe snippet quiet), and no pair's CWE is left out of the table.
 * After adding pairs: (cd server && npx tsx ../bench/code-analysis/coverage.ts --write).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAIR_FILES } from '../fixtures/idiomatic';
import { coverageTable, unlistedCwes } from '../fixtures/idiomatic/coverage';
import { COVERAGE_BEGIN, COVERAGE_END } from '../fixtures/idiomatic/coverage-markers';

const docs = readFileSync(new URL('../../../docs/code-analysis.md', import.meta.url), 'utf8');

describe('coverage table', () => {
  it('in the docs is the one the idiomatic pairs give', () => {
    const start = docs.indexOf(COVERAGE_BEGIN);
    const end = docs.indexOf(COVERAGE_END);
    expect(start, 'coverage markers in docs/code-analysis.md').toBeGreaterThan(-1);
    expect(docs.slice(start + COVERAGE_BEGIN.length, end).trim()).toBe(coverageTable());
  });

  it('names only fixture files that exist', () => {
    const files = new Set(Object.keys(PAIR_FILES));
    const named = [...coverageTable().matchAll(/✓ ([\w-]+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(100);
    for (const file of named) expect(files.has(file ?? ''), `${file}.ts`).toBe(true);
  });

  it('lists every CWE the pairs test', () => {
    expect(unlistedCwes()).toEqual([]);
  });
});

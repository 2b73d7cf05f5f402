/**
 * Idiomatic vulnerable/safe pairs in every language (test/fixtures/idiomatic): the vulnerable snippet gets a
 * finding with the pair's CWE on its vulnerable line, the safe one none. bench/code-analysis/pairs.ts prints the
 * same pairs as a table.
 */
import { describe, expect, it } from 'vitest';
import { IDIOMATIC_PAIRS } from '../fixtures/idiomatic';
import { evaluatePair } from '../fixtures/idiomatic/evaluate';

const languages = [...new Set(IDIOMATIC_PAIRS.map((p) => p.language))];

for (const language of languages) {
  describe(`idiomatic pairs in ${language}`, () => {
    for (const pair of IDIOMATIC_PAIRS.filter((p) => p.language === language)) {
      it(`CWE-${pair.cwe}: ${pair.line}`, async () => {
        const outcome = await evaluatePair(pair);
        expect(outcome.parseErrors, 'both snippets parse').toBe(0);
        expect(outcome.found, `vulnerable line \`${pair.line}\` is reported`).toBe(true);
        expect(outcome.ruleFound, `${pair.rule} reports the vulnerable line`).toBe(true);
        expect(
          outcome.safeFindings.map((f) => `${f.rule_id}@${f.line}`),
          'the safe snippet is not reported',
        ).toEqual([]);
      });
    }
  });
}

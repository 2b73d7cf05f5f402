/**
 * A floor under the Bandit examples scorecard (bench/code-analysis/bandit.ts, BENCHMARKS.md): every example Bandit's
 * functional tests count with its full test set, medium and high severity within ±1, at min_confidence low and
 * medium. Raise the floors as the analysis improves. Skipped when ../shared/corpora is not beside the checkout.
 */
import type { Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import {
  analyzeExample,
  type BanditExample,
  formatBandit,
  loadBandit,
  scoreBandit,
} from '../../../bench/code-analysis/bandit-score';

/**
 * Percent of the examples whose medium + high count is within ±1 of Bandit's, at min_confidence low and at the
 * default (medium); 2026-11-29: 88.2 (60 of 68) and 79.4 (54 of 68).
 */
const FLOOR = 85;
const FLOOR_MEDIUM = 75;

describe('Bandit examples', () => {
  const examples = loadBandit();
  it.skipIf(!examples)(
    `within ±1 of Bandit's count in at least ${FLOOR} % of the examples (${FLOOR_MEDIUM} % at medium)`,
    async () => {
      if (!examples) return;
      const results: { example: BanditExample; findings: Finding[] }[] = [];
      for (const example of examples) results.push({ example, findings: await analyzeExample(example) });
      for (const [threshold, floor] of [
        ['low', FLOOR],
        ['medium', FLOOR_MEDIUM],
      ] as const) {
        const scores = scoreBandit(results, threshold);
        const matched = scores.filter((s) => s.match).length;
        expect(
          (100 * matched) / scores.length,
          formatBandit(`Bandit examples, min_confidence ${threshold}`, scores, true),
        ).toBeGreaterThanOrEqual(floor);
      }
    },
    120_000,
  );
  if (!examples) it.skip('../shared/corpora/bandit is absent: nothing to score', () => {});
});

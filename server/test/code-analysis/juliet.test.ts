/**
 * A floor under the Juliet Java scorecard (breadth over 112 CWEs): 4 cases of every CWE, spread over its sorted
 * cases (a fixed sample), scored as the corpus README says. Raise the floors as the analysis improves; the full run
 * is `bench/code-analysis/juliet.ts` (BENCHMARKS.md). Skipped when ../shared/corpora is not beside the checkout.
 */
import { describe, expect, it } from 'vitest';
import { formatJuliet, loadJuliet, runJuliet } from '../../../bench/code-analysis/juliet-score';

/** The sample scored 89 covered CWEs and a mean of 73.6 over all 112 when this floor was set. */
const FLOOR = { covered: 87, meanAll: 72, maxCoveredFpr: 10 };

describe('Juliet Java 1.3 (4 cases a CWE)', () => {
  const suite = loadJuliet();
  it.skipIf(!suite)(
    `covers at least ${FLOOR.covered} CWEs with a mean score of at least ${FLOOR.meanAll}`,
    async () => {
      if (!suite) return;
      const card = await runJuliet(suite, { perCwe: 4 });
      const table = formatJuliet('Juliet Java, 4 cases a CWE', card);
      expect(card.cwes.length, table).toBe(112);
      expect(card.covered, table).toBeGreaterThanOrEqual(FLOOR.covered);
      expect(card.meanAll, table).toBeGreaterThanOrEqual(FLOOR.meanAll);
      for (const s of card.cwes.filter((c) => c.covered))
        expect(s.fpr, table).toBeLessThanOrEqual(FLOOR.maxCoveredFpr);
    },
    120_000,
  );
  if (!suite) it.skip('../shared/corpora/juliet-java is absent: nothing to score', () => {});
});

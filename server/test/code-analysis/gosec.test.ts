/**
 * A floor under the gosec samples scorecard (bench/code-analysis/gosec.ts, BENCHMARKS.md): all the samples with
 * gosec's default config and no suppression comment, at min_confidence low, scored as gosec-score.ts says. Raise
 * the floors as the analysis improves. Skipped when ../shared/corpora is not beside the checkout.
 */

import type { Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import {
  analyzeSample,
  formatGosec,
  type GosecSample,
  loadGosec,
  scoreGosec,
} from '../../../bench/code-analysis/gosec-score';

/** Percent of expected-finding samples found, and the most clean samples (percent) flagged; 9caa253: 89.5 and 8.1. */
const FLOOR = { found: 87, maxFlagged: 10 };

describe('gosec samples', () => {
  const corpus = loadGosec();
  it.skipIf(!corpus)(
    `finds at least ${FLOOR.found} % of the vulnerable samples, flags at most ${FLOOR.maxFlagged} % of the clean`,
    async () => {
      if (!corpus) return;
      const results: { sample: GosecSample; findings: Finding[] }[] = [];
      for (const sample of corpus.samples) results.push({ sample, findings: await analyzeSample(sample) });
      const rules = scoreGosec(results, 'low');
      const sum = (k: 'vulnerable' | 'clean' | 'found' | 'flagged') => rules.reduce((a, r) => a + r[k], 0);
      const table = formatGosec('gosec samples, min_confidence low', rules, true);
      expect((100 * sum('found')) / sum('vulnerable'), table).toBeGreaterThanOrEqual(FLOOR.found);
      expect((100 * sum('flagged')) / sum('clean'), table).toBeLessThanOrEqual(FLOOR.maxFlagged);
    },
    120_000,
  );
  if (!corpus) it.skip('../shared/corpora/gosec is absent: nothing to score', () => {});
});

/**
 * The latency benchmarks' query classes (throughput-latency.ts, profile.ts), deterministic: the same
 * queries in the same order on every run. `total` documents are indexed; a paragraph is the text of
 * a document past them, so not in the collection.
 */
import { syntheticDocument, word } from './corpus';

export type QueryClass = [label: string, make: () => Record<string, unknown>];

export function queryClasses(total: number): QueryClass[] {
  // Ranks pick document frequency: rank 20-100 is in roughly 5-30% of documents, 3,000+ in well under 1%.
  let seed = 0;
  const pick = (lo: number, hi: number) => word(lo + ((seed++ * 7919) % (hi - lo)));
  return [
    ['rare term', () => ({ query: pick(3_000, 30_000) })],
    ['common term', () => ({ query: pick(20, 100) })],
    ['common + rare', () => ({ query: `${pick(20, 100)} ${pick(1_000, 10_000)}` })],
    ['two common (OR)', () => ({ query: `${pick(20, 60)} OR ${pick(60, 100)}` })],
    ['phrase', () => ({ query: `"${pick(0, 30)} ${pick(0, 30)}"` })],
    ['fuzzy rare', () => ({ query: pick(3_000, 30_000).replace(/x$/, 'q'), mode: 'fuzzy' })],
    ['common + filter', () => ({ query: pick(20, 100), filter: { n: { lt: 50_000 } } })],
    ['two words, "and"', () => ({ query: `${pick(20, 100)} ${pick(1_000, 10_000)}`, operator: 'and' })],
    [
      'question, 8 words',
      () => ({
        query: [
          pick(0, 20),
          pick(0, 20),
          pick(20, 100),
          pick(20, 100),
          pick(100, 1_000),
          pick(100, 1_000),
          pick(1_000, 10_000),
          pick(3_000, 30_000),
        ].join(' '),
      }),
    ],
    // A document's text that is not in the collection, pasted whole (40-120 Zipf words).
    ['paragraph', () => ({ query: syntheticDocument(total + seed++).text })],
  ];
}

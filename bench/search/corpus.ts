/**
 * A deterministic synthetic corpus for throughput and latency: a 30,000-word vocabulary of
 * pronounceable pseudo-words drawn with Zipf's law (s = 1), as word frequencies in text are, so
 * there are a few very common terms and a long tail of rare ones.
 */
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ru',
  'te',
  'sa',
  'no',
  'vi',
  'da',
  'pe',
  'zu',
  'fo',
  'gi',
  'ba',
  'ho',
  'xe',
  'ny',
  'qu',
  'wa',
  'ji',
];
export const VOCABULARY_SIZE = 30_000;

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Word of rank r: base-20 digits as syllables, plus a letter so no word is a stem of another. */
export function word(rank: number): string {
  let n = rank;
  let out = '';
  do {
    out += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return `${out}x`;
}

const cumulative = (() => {
  const weights = Array.from({ length: VOCABULARY_SIZE }, (_, r) => 1 / (r + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => {
    acc += w / total;
    return acc;
  });
})();

function zipfRank(random: () => number): number {
  const u = random();
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulative[mid] ?? 1) < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface SyntheticDocument {
  id: string;
  title: string;
  text: string;
  metadata: { n: number; published: string };
}

export function syntheticDocument(i: number): SyntheticDocument {
  const random = rng(i + 1);
  const words = (n: number) => Array.from({ length: n }, () => word(zipfRank(random))).join(' ');
  return {
    id: `d${String(i).padStart(6, '0')}`,
    title: words(3 + Math.floor(random() * 6)),
    text: words(40 + Math.floor(random() * 80)),
    metadata: { n: i, published: new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString() },
  };
}

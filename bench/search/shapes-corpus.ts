/**
 * The documents and query shapes of shapes.ts (issue 43): documents built from CACM's abstracts (each
 * joins three of them, ~250 words, and a year 1960-1989 in its metadata), and one query per shape and
 * index, deterministic, given to both engines (Tessera's request, FTS5's `ReferenceQuery`).
 */
import { readCacm } from './cacm-corpus';
import { rng } from './corpus';
import { type ReferenceDocument, type ReferenceQuery, STOP_WORDS } from './fts5';

const { documents: cacm, queries: cacmQueries } = readCacm();
const abstracts = cacm.filter((d) => d.text.split(' ').length >= 40);

export function shapeDocument(i: number): ReferenceDocument {
  const pick = (k: number) => abstracts[(i * (2 * k + 1) + k * 997) % abstracts.length];
  const parts = [pick(0), pick(1), pick(2)];
  return {
    id: `c${String(i).padStart(6, '0')}`,
    title: parts[0]?.title ?? '',
    text: parts.map((p) => `${p?.title ?? ''}. ${p?.text ?? ''}`).join(' '),
    metadata: { year: 1960 + (i % 30) },
  };
}

// Vocabulary by document frequency over the abstracts (lowercase words of 4+ letters): the common
// words of the queries, rare words (in 2-4 abstracts, so a few hundred documents), and the frequent
// adjacent pairs for phrases.
const words = (text: string) => text.toLowerCase().match(/[a-z]{4,}/g) ?? [];
const df = new Map<string, number>();
const pairs = new Map<string, number>();
for (const d of abstracts) {
  const ws = words(d.text);
  for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  for (let k = 0; k + 1 < ws.length; k++) {
    const p = `${ws[k]} ${ws[k + 1]}`;
    pairs.set(p, (pairs.get(p) ?? 0) + 1);
  }
}
const common = [...df.entries()]
  .sort((x, y) => y[1] - x[1])
  .filter(([w]) => !STOP_WORDS.has(w))
  .slice(0, 100)
  .map(([w]) => w);
const rare = [...df.entries()]
  .filter(([w, n]) => n >= 2 && n <= 4 && w.length >= 7)
  .map(([w]) => w)
  .sort();
const frequentPairs = [...pairs.entries()]
  .filter(([p]) => p.split(' ').every((w) => !STOP_WORDS.has(w)))
  .sort((x, y) => y[1] - x[1])
  .slice(0, 80)
  .map(([p]) => p);

export interface Shape {
  label: string;
  make: (i: number) => { request: Record<string, unknown>; reference: ReferenceQuery };
}

/** Every query of a shape is made once per index, so both engines and every limit get the same ones. */
function memo<T>(make: (i: number) => T): (i: number) => T {
  const made = new Map<number, T>();
  return (i) => {
    if (!made.has(i)) made.set(i, make(i));
    return made.get(i) as T;
  };
}

export function shapes(): Shape[] {
  const random = rng(43);
  const sample = <T>(from: T[], n: number) => {
    const pool = [...from];
    const out: T[] = [];
    while (out.length < n && pool.length > 0)
      out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T);
    return out;
  };
  const one = <T>(from: T[]) => sample(from, 1)[0] as T;
  const paragraph = () => `${one(abstracts).text} ${one(abstracts).text}`.split(' ').slice(0, 60).join(' ');
  // Two letters of a rare word swapped: a typo fuzzy search should still find.
  const misspelt = (w: string) => `${w.slice(0, 3)}${w[4]}${w[3]}${w.slice(5)}`;
  const plain = (words: string[], extra: Record<string, unknown> = {}) => ({
    request: { query: words.join(' '), ...extra },
    reference: { words },
  });
  const ored = (words: string[]) => ({ request: { query: words.join(' OR ') }, reference: { words } });
  const list: [string, (i: number) => { request: Record<string, unknown>; reference: ReferenceQuery }][] = [
    ['rare word', () => plain([one(rare)])],
    ['common word', () => plain([one(common)])],
    ['common + rare', () => plain([one(common), one(rare)])],
    [
      'common + rare, "and"',
      () => {
        const ws = [one(common), one(rare)];
        return { request: { query: ws.join(' '), operator: 'and' }, reference: { words: ws, and: true } };
      },
    ],
    ['2 common words OR', () => ored(sample(common, 2))],
    ['16 common words OR', () => ored(sample(common, 16))],
    [
      'quoted frequent pair',
      () => {
        const p = one(frequentPairs);
        return { request: { query: `"${p}"` }, reference: { phrases: [p] } };
      },
    ],
    [
      '10 quoted frequent pairs',
      () => {
        const ps = sample(frequentPairs, 10);
        return { request: { query: ps.map((p) => `"${p}"`).join(' ') }, reference: { phrases: ps } };
      },
    ],
    [
      // FTS5 has no fuzzy matching: its side runs the word spelt right, the least it could do.
      'fuzzy (misspelt rare word)',
      () => {
        const w = one(rare);
        return { request: { query: misspelt(w), mode: 'fuzzy' }, reference: { words: [w] } };
      },
    ],
    [
      'common word + filter (year ≥ 1985)',
      () => {
        const w = one(common);
        return {
          request: { query: w, filter: { year: { gte: 1985 } } },
          reference: { words: [w], minYear: 1985 },
        };
      },
    ],
    [
      'exclusion alone (-word)',
      () => {
        const w = one(common.slice(0, 30));
        return { request: { query: `-${w}` }, reference: { exclude: w } };
      },
    ],
    [
      'question (a CACM query)',
      () => {
        const q = one(cacmQueries.filter((c) => c.text.split(' ').length <= 30)).text;
        return { request: { query: q }, reference: { words: [q] } };
      },
    ],
    [
      '60-word paragraph',
      () => {
        const p = paragraph();
        return { request: { query: p }, reference: { words: [p] } };
      },
    ],
  ];
  return list.map(([label, make]) => ({ label, make: memo(make) }));
}

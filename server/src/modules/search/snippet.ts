import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { wordKey, wordLexemes } from './analysis';
import { queryRows, textArrayLiteral } from './sql';

/**
 * Snippets are taken from the first this many characters of the body, which bounds highlighting work
 * per hit (Lucene's highlighters have the same kind of limit). A match only further on still ranks the
 * document; its snippet is then the beginning.
 */
export const HIGHLIGHT_MAX_CHARS = 10_000;

/** Words a fragment holds, fragments a snippet holds (joined by FRAGMENT_DELIMITER). */
const FRAGMENT_WORDS = 40;
const MAX_FRAGMENTS = 2;
const FRAGMENT_DELIMITER = ' … ';
/** Words shown before a fragment's first match, so that it reads in context. */
const LEAD_IN = 5;

/** SQL: the part of a hit's body its snippet is made from (`d`, a search_documents row). */
export const snippetSourceSql = (): SQL => sql`left(d.body, ${HIGHLIGHT_MAX_CHARS})`;

/** Lowercase without diacritics, for the cheap test below only (an ASCII word has none to strip). */
const fold = (text: string) =>
  /^\w*$/.test(text) ? text.toLowerCase() : text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Non-ASCII code points seen, whether each is a letter or digit (a page's texts repeat a few). */
const wordChars = new Map<number, boolean>();

function isWordChar(cp: number): boolean {
  if (cp < 128) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  let known = wordChars.get(cp);
  if (known === undefined) {
    known = WORD_CHAR.test(String.fromCodePoint(cp));
    if (wordChars.size < 65_536) wordChars.set(cp, known);
  }
  return known;
}

/** A text's words: word k spans [bounds[2k], bounds[2k + 1]). */
export interface WordBounds {
  bounds: Int32Array;
  count: number;
}

/**
 * A text's words, maximal runs of letters and digits (`[\p{L}\p{N}]+`), at most `max` of them, as
 * offsets: making an object and two strings of every word (30,000 words for a page of 100) was most
 * of a page's snippet time. A collection's index in memory keeps them per document (memory.ts).
 */
export function wordBounds(text: string, max = Number.POSITIVE_INFINITY): WordBounds {
  let bounds = new Int32Array(256);
  let count = 0;
  let start = -1;
  const end = (at: number) => {
    if (2 * count + 2 > bounds.length) {
      const grown = new Int32Array(bounds.length * 2);
      grown.set(bounds);
      bounds = grown;
    }
    bounds[2 * count] = start;
    bounds[2 * count + 1] = at;
    count++;
    start = -1;
  };
  for (let i = 0; i < text.length && count < max; ) {
    const unit = text.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (unit < 128)
      word = (unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122);
    else {
      const cp = text.codePointAt(i) as number;
      width = cp > 0xffff ? 2 : 1;
      word = isWordChar(cp);
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) end(i);
    i += width;
  }
  if (start >= 0 && count < max) end(text.length);
  return { bounds: count * 2 < bounds.length / 2 ? bounds.slice(0, 2 * count) : bounds, count };
}

/**
 * The lowercased text of the words `wanted` lets through (by the UTF-16 unit they start with,
 * lowercased when ASCII; a word starting with any other is always let through): only those can be
 * marked, so only those become strings.
 */
interface Scanned extends WordBounds {
  words: Map<number, string>;
}

function candidates(text: string, { bounds, count }: WordBounds, wanted: Set<number> | undefined): Scanned {
  const words = new Map<number, string>();
  if (wanted)
    for (let k = 0; k < count; k++) {
      const start = bounds[2 * k] as number;
      const first = text.charCodeAt(start);
      const lower = first >= 65 && first <= 90 ? first + 32 : first;
      if (first >= 128 || wanted.has(lower))
        words.set(k, text.slice(start, bounds[2 * k + 1] as number).toLowerCase());
    }
  return { bounds, count, words };
}

/** The text's words (scan's), as objects: for tests. */
export function tokens(text: string): { start: number; end: number; word: string }[] {
  const { bounds, count } = wordBounds(text);
  return Array.from({ length: count }, (_, k) => {
    const start = bounds[2 * k] as number;
    const end = bounds[2 * k + 1] as number;
    return { start, end, word: text.slice(start, end).toLowerCase() };
  });
}

/** The first UTF-16 unit of each lexeme's folded prefix (markedWords's), for scan to let through. */
interface Prefixes {
  byFirst: Map<string, string[]>;
  firstUnits: Set<number>;
}

/**
 * A stemmer (snowball, or `simple`'s lowercasing) keeps a word's beginning, up to the lexeme's last
 * letter (`happy` → `happi`), and accents (German `häuser` → `haus`), so a word not starting with a
 * lexeme but its last letter, both folded, cannot be one of its forms.
 */
function prefixesOf(lexemes: string[]): Prefixes {
  // By first letter: a page has thousands of distinct words, and a query up to 32 lexemes.
  const byFirst = new Map<string, string[]>();
  for (const l of lexemes) {
    const f = fold(l);
    const p = f.length > 1 ? f.slice(0, -1) : f;
    byFirst.set(p.charAt(0), [...(byFirst.get(p.charAt(0)) ?? []), p]);
  }
  return { byFirst, firstUnits: new Set([...byFirst.keys()].map((k) => k.charCodeAt(0))) };
}

/**
 * Which of the page's words analyse to a lexeme to mark. Postgres's own analysis decides (so a word is
 * marked when, and only when, it is what the query's lexeme matched), asked in one statement for the
 * words not cached; only words that can stem to a marked lexeme (prefixesOf) are asked about.
 */
async function markedWords(
  db: Db,
  language: string,
  lexemes: string[],
  prefixes: Prefixes,
  words: Set<string>,
): Promise<Set<string>> {
  const wanted = new Set(lexemes);
  const marked = new Set<string>();
  const unknown: string[] = [];
  const decide = (word: string, of: string[]) => {
    if (of.some((l) => wanted.has(l))) marked.add(word);
  };
  for (const word of words) {
    const folded = fold(word);
    if (!prefixes.byFirst.get(folded.charAt(0))?.some((p) => folded.startsWith(p))) continue;
    const known = wordLexemes.fresh(wordKey(language, word));
    if (known) decide(word, known);
    else unknown.push(word);
  }
  if (unknown.length > 0) {
    const rows = await queryRows<{ w: string; lexemes: string[] }>(
      db,
      sql`select w, tsvector_to_array(to_tsvector(${language}::regconfig, w)) as lexemes
          from unnest(${textArrayLiteral(unknown)}::text[]) w`,
    );
    for (const r of rows) {
      wordLexemes.set(wordKey(language, r.w), r.lexemes);
      decide(r.w, r.lexemes);
    }
  }
  return marked;
}

/** The text of words [from, to) with what lies between them, escaped, the words at `hits` in <mark>. */
function fragment(text: string, { bounds }: Scanned, from: number, to: number, hits: number[]): string {
  let out = '';
  let h = 0;
  while (h < hits.length && (hits[h] as number) < from) h++;
  for (let k = from; k < to; k++) {
    const start = bounds[2 * k] as number;
    if (k > from) out += escapeHtml(text.slice(bounds[2 * k - 1] as number, start));
    const word = escapeHtml(text.slice(start, bounds[2 * k + 1] as number));
    if (hits[h] === k) {
      out += `<mark>${word}</mark>`;
      h++;
    } else out += word;
  }
  return out;
}

/**
 * The best free window of each hit's (FRAGMENT_WORDS from LEAD_IN words before it): the most distinct
 * marked words, then the most marks. Windows move forward with the hits, so one pass counts them all
 * (a body where a query word is every other word has thousands of hits).
 */
function bestWindow(
  count: number,
  hits: number[],
  hitWords: string[],
  free: (from: number, to: number) => boolean,
) {
  let best: { from: number; to: number; value: number } | undefined;
  const counts = new Map<string, number>();
  let lo = 0;
  let hi = 0;
  for (const h of hits) {
    const from = Math.max(0, Math.min(h - LEAD_IN, count - FRAGMENT_WORDS));
    const to = Math.min(count, from + FRAGMENT_WORDS);
    for (; hi < hits.length && (hits[hi] as number) < to; hi++) {
      const w = hitWords[hi] as string;
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    for (; lo < hi && (hits[lo] as number) < from; lo++) {
      const w = hitWords[lo] as string;
      const n = (counts.get(w) ?? 1) - 1;
      if (n === 0) counts.delete(w);
      else counts.set(w, n);
    }
    const value = counts.size * 10_000 + (hi - lo);
    if (free(from, to) && (!best || value > best.value)) best = { from, to, value };
  }
  return best;
}

/**
 * The fragments of FRAGMENT_WORDS words holding the most distinct marked words (then the most
 * marks), at most MAX_FRAGMENTS, not overlapping, in the text's order; the first words when nothing
 * is marked. As ts_headline's MaxFragments, without parsing the body in SQL (1-2.5 ms a hit, most of a
 * page of 100's time).
 */
function snippetOf(text: string, scanned: Scanned, marked: Set<string>): string {
  const hits: number[] = [];
  const hitWords: string[] = [];
  for (const [k, word] of scanned.words) {
    if (!marked.has(word)) continue;
    hits.push(k);
    hitWords.push(word);
  }
  const chosen: [number, number][] = [];
  if (hits.length === 0) chosen.push([0, Math.min(FRAGMENT_WORDS, scanned.count)]);
  const free = (from: number, to: number) => chosen.every(([a, b]) => to <= a || from >= b);
  while (hits.length > 0 && chosen.length < MAX_FRAGMENTS) {
    const best = bestWindow(scanned.count, hits, hitWords, free);
    if (!best) break;
    chosen.push([best.from, best.to]);
  }
  chosen.sort((x, y) => x[0] - y[0]);
  return chosen
    .map(([from, to]) => fragment(text, scanned, from, to, hits))
    .join(FRAGMENT_DELIMITER)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Snippets of a page's hits (each from `snippetSourceSql`), HTML-escaped, the words of `lexemes` in
 * <mark>: the snippet can hold nothing but escaped text and our tags. No lexemes (an exclusion
 * alone): the first words, so only those are read.
 */
export async function makeSnippets(
  db: Db,
  language: string,
  lexemes: string[],
  texts: string[],
  /** Each text's words when known (memory.ts keeps them), else they are found here. */
  known: (WordBounds | undefined)[] = [],
): Promise<string[]> {
  const prefixes = lexemes.length > 0 ? prefixesOf(lexemes) : undefined;
  const scanned = texts.map((text, i) =>
    candidates(
      text,
      known[i] ?? wordBounds(text, prefixes ? Number.POSITIVE_INFINITY : FRAGMENT_WORDS),
      prefixes?.firstUnits,
    ),
  );
  const words = new Set<string>();
  for (const s of scanned) for (const word of s.words.values()) words.add(word);
  const marked =
    prefixes && words.size > 0
      ? await markedWords(db, language, lexemes, prefixes, words)
      : new Set<string>();
  return texts.map((text, i) => snippetOf(text, scanned[i] as Scanned, marked));
}

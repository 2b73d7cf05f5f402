import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { systemClock } from '../../lib/clock';
import { TtlCache } from '../../lib/ttl-cache';
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

/**
 * The lexemes a word analyses to, per language (text search configuration): a word's analysis does
 * not change, and a page's words mostly recur from one search to the next, so most pages need no
 * statement. The TTL picks up a dictionary changed under a configuration.
 */
const analysed = new TtlCache<string, string[]>({ max: 50_000, ttlMs: 3_600_000, clock: systemClock });

/** Lowercase without diacritics, for the cheap test below only (an ASCII word has none to strip). */
const fold = (text: string) =>
  /^\w*$/.test(text) ? text.toLowerCase() : text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );

interface Token {
  start: number;
  end: number;
  word: string;
}

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

/**
 * The text's words: maximal runs of letters and digits (`[\p{L}\p{N}]+`), lowercased. Scanned by code
 * point rather than by `matchAll`, whose match object per word was most of a page's snippet time.
 */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  let start = -1;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    if (isWordChar(cp)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push({ start, end: i, word: text.slice(start, i).toLowerCase() });
      start = -1;
    }
    i += width;
  }
  if (start >= 0) out.push({ start, end: text.length, word: text.slice(start).toLowerCase() });
  return out;
}

/**
 * Which of the page's words analyse to a lexeme to mark. Postgres's own analysis decides (so a word is
 * marked when, and only when, it is what the query's lexeme matched), asked in one statement for the
 * words not cached; only words that can stem to a marked lexeme are asked about: a stemmer (snowball,
 * or `simple`'s lowercasing) keeps a word's beginning, up to the lexeme's last letter (`happy` → `happi`)
 * and accents (German `häuser` → `haus`), so a word not starting with a lexeme but its last letter,
 * both folded, cannot be one of its forms.
 */
async function markedWords(
  db: Db,
  language: string,
  lexemes: string[],
  words: Set<string>,
): Promise<Set<string>> {
  const wanted = new Set(lexemes);
  // By first letter: a page has thousands of distinct words, and a query up to 32 lexemes.
  const prefixes = new Map<string, string[]>();
  for (const l of lexemes) {
    const f = fold(l);
    const p = f.length > 1 ? f.slice(0, -1) : f;
    prefixes.set(p.charAt(0), [...(prefixes.get(p.charAt(0)) ?? []), p]);
  }
  const marked = new Set<string>();
  const unknown: string[] = [];
  const decide = (word: string, of: string[]) => {
    if (of.some((l) => wanted.has(l))) marked.add(word);
  };
  for (const word of words) {
    const folded = fold(word);
    if (!prefixes.get(folded.charAt(0))?.some((p) => folded.startsWith(p))) continue;
    const known = analysed.fresh(`${language}\u0000${word}`);
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
      analysed.set(`${language}\u0000${r.w}`, r.lexemes);
      decide(r.w, r.lexemes);
    }
  }
  return marked;
}

/** The text of tokens [from, to) with what lies between them, escaped, marked words in <mark>. */
function fragment(text: string, toks: Token[], from: number, to: number, marked: Set<string>): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const t = toks[i] as Token;
    if (i > from) out += escapeHtml(text.slice((toks[i - 1] as Token).end, t.start));
    const word = escapeHtml(text.slice(t.start, t.end));
    out += marked.has(t.word) ? `<mark>${word}</mark>` : word;
  }
  return out;
}

/**
 * The best free window of each hit's (FRAGMENT_WORDS from LEAD_IN words before it): the most distinct
 * marked words, then the most marks. Windows move forward with the hits, so one pass counts them all
 * (a body where a query word is every other word has thousands of hits).
 */
function bestWindow(toks: Token[], hits: number[], free: (from: number, to: number) => boolean) {
  let best: { from: number; to: number; value: number } | undefined;
  const counts = new Map<string, number>();
  let lo = 0;
  let hi = 0;
  for (const h of hits) {
    const from = Math.max(0, Math.min(h - LEAD_IN, toks.length - FRAGMENT_WORDS));
    const to = Math.min(toks.length, from + FRAGMENT_WORDS);
    for (; hi < hits.length && (hits[hi] as number) < to; hi++) {
      const w = (toks[hits[hi] as number] as Token).word;
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    for (; lo < hi && (hits[lo] as number) < from; lo++) {
      const w = (toks[hits[lo] as number] as Token).word;
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
function snippetOf(text: string, toks: Token[], marked: Set<string>): string {
  const hits: number[] = [];
  for (let i = 0; i < toks.length; i++) if (marked.has((toks[i] as Token).word)) hits.push(i);
  const chosen: [number, number][] = [];
  if (hits.length === 0) chosen.push([0, Math.min(FRAGMENT_WORDS, toks.length)]);
  const free = (from: number, to: number) => chosen.every(([a, b]) => to <= a || from >= b);
  while (hits.length > 0 && chosen.length < MAX_FRAGMENTS) {
    const best = bestWindow(toks, hits, free);
    if (!best) break;
    chosen.push([best.from, best.to]);
  }
  chosen.sort((x, y) => x[0] - y[0]);
  return chosen
    .map(([from, to]) => fragment(text, toks, from, to, marked))
    .join(FRAGMENT_DELIMITER)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Snippets of a page's hits (each from `snippetSourceSql`), HTML-escaped, the words of `lexemes` in
 * <mark>: the snippet can hold nothing but escaped text and our tags. No lexemes (an exclusion
 * alone): the first words.
 */
export async function makeSnippets(
  db: Db,
  language: string,
  lexemes: string[],
  texts: string[],
): Promise<string[]> {
  const toks = texts.map(tokens);
  const words = new Set<string>();
  if (lexemes.length > 0) for (const list of toks) for (const t of list) words.add(t.word);
  const marked = words.size > 0 ? await markedWords(db, language, lexemes, words) : new Set<string>();
  return texts.map((text, i) => snippetOf(text, toks[i] as Token[], marked));
}

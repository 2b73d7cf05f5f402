import { type SQL, sql } from 'drizzle-orm';
import { systemClock } from '../../lib/clock';
import { TtlCache } from '../../lib/ttl-cache';
import { quoteLexeme, textArrayLiteral } from './sql';
import type { ParsedQuery } from './syntax';

/**
 * A query's analysis (what plan.ts's statement asks Postgres for) from what earlier statements told,
 * so that a search from memory (memory.ts) needs no analysis statement when its words were seen.
 *
 * Postgres's default parser never joins two whitespace-separated pieces into one token, so
 * `to_tsvector(language, 'w1 w2 …')` holds, for each lexeme, one position per occurrence in the pieces
 * analysed alone (at most 255, as Postgres keeps them): the plain words' analysis is the sum of each
 * piece's. A piece made only of ASCII letters and digits with separators Postgres never reads as part
 * of a token (SEPARATORS; `.` and `:` only after its last letter or digit: `e.g.` is a host, `a:b`
 * may be a URL) analyses as its runs of letters and digits, each alone, one position each: those runs
 * are the words snippets also ask Postgres about (snippet.ts), so both share one cache, keyed by the
 * lowercased word (every configuration lowercases ASCII before its dictionaries). Any other piece,
 * and a quoted or operator unit that is not made of such runs, is cached whole, as the statement gave it.
 * phraseto_tsquery of runs of one lexeme or none each is their lexemes chained by their distances
 * (`'a' <-> 'b' <2> 'c'`; stop words keep their place, leading and trailing ones dropped).
 * test/search/analysis.test.ts compares all of it with Postgres on random queries.
 */

/** language NUL lowercased word → its lexemes (to_tsvector of the word alone). */
export const wordLexemes = new TtlCache<string, string[]>({
  max: 50_000,
  ttlMs: 3_600_000,
  clock: systemClock,
});
/** language NUL piece → [lexeme, positions] of to_tsvector of a piece that is not runs of safe words. */
const pieceAnalysis = new TtlCache<string, [string, number][]>({
  max: 10_000,
  ttlMs: 3_600_000,
  clock: systemClock,
});
/** language NUL unit text → phraseto_tsquery's text and to_tsvector's lexemes, for units not of safe words. */
const unitAnalysis = new TtlCache<string, AnalysedUnit>({
  max: 10_000,
  ttlMs: 3_600_000,
  clock: systemClock,
});

export const wordKey = (language: string, word: string) => `${language}\u0000${word}`;

/** A unit as phraseto_tsquery and to_tsvector analyse it ('' and [] when only stop words). */
export interface AnalysedUnit {
  q: string;
  lexemes: string[];
}

/** The plain words' lexemes with their times in the query, and each unit of the clauses in order. */
export interface QueryAnalysis {
  words: Map<string, number>;
  units: AnalysedUnit[];
}

/** What the caches lack for a query: plain pieces, safe words and units to ask Postgres about. */
export interface Missing {
  words: string[];
  pieces: string[];
  units: string[];
}

/** Positions Postgres keeps of one lexeme in a tsvector (MAXNUMPOS − 1). */
const MAX_POSITIONS = 255;
const SEPARATORS = new Set([...",;!?()[]{}*'"]);
const TRAILING = new Set([...SEPARATORS, '.', ':']);

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The lowercased runs of letters and digits of a safe piece (see above), or undefined. */
export function safeWords(piece: string): string[] | undefined {
  const out: string[] = [];
  let start = -1;
  let last = -1;
  for (let i = 0; i < piece.length; i++) if (isAlnum(piece.charCodeAt(i))) last = i;
  for (let i = 0; i <= piece.length; i++) {
    const c = i < piece.length ? piece.charCodeAt(i) : -1;
    if (c >= 0 && isAlnum(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) out.push(piece.slice(start, i).toLowerCase());
    start = -1;
    if (c < 0) break;
    const ch = piece.charAt(i);
    if (!(i > last ? TRAILING : SEPARATORS).has(ch)) return undefined;
  }
  return out;
}

const byteOrder = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** phraseto_tsquery's text of words with at most one lexeme each, in order (undefined otherwise). */
export function chainOf(lexemes: string[][]): string | undefined {
  let out = '';
  let previous = -1;
  for (let position = 0; position < lexemes.length; position++) {
    const of = lexemes[position] as string[];
    if (of.length > 1) return undefined;
    const lexeme = of[0];
    if (lexeme === undefined) continue;
    const distance = position - previous;
    out +=
      previous < 0 ? quoteLexeme(lexeme) : ` <${distance === 1 ? '-' : distance}> ${quoteLexeme(lexeme)}`;
    previous = position;
  }
  return out;
}

/** Whitespace-separated pieces, as Postgres's parser sees them apart. */
const piecesOf = (text: string) => text.split(/\s+/).filter((p) => p !== '');

/**
 * The analysis of `parsed` for `language` from the caches, or what is missing from them. Units
 * are listed as the plan statement lists them (clauses in order, their units in order).
 */
export function analyseFromCache(
  language: string,
  parsed: ParsedQuery,
): { analysis: QueryAnalysis } | { missing: Missing } {
  const missing: Missing = { words: [], pieces: [], units: [] };
  const lexemesOfWord = (word: string) => {
    const known = wordLexemes.fresh(wordKey(language, word));
    if (!known) missing.words.push(word);
    return known;
  };
  const words = new Map<string, number>();
  const add = (lexeme: string, times: number) =>
    words.set(lexeme, Math.min(MAX_POSITIONS, (words.get(lexeme) ?? 0) + times));
  for (const piece of parsed.words.flatMap(piecesOf)) {
    const safe = safeWords(piece);
    if (safe) {
      for (const word of safe) for (const lexeme of lexemesOfWord(word) ?? []) add(lexeme, 1);
      continue;
    }
    const known = pieceAnalysis.fresh(wordKey(language, piece));
    if (!known) missing.pieces.push(piece);
    else for (const [lexeme, times] of known) add(lexeme, times);
  }
  const units: AnalysedUnit[] = [];
  for (const clause of parsed.clauses) {
    for (const unit of clause.units) {
      const pieces = piecesOf(unit.text).map(safeWords);
      const safe = pieces.every((p) => p !== undefined) ? (pieces as string[][]).flat() : undefined;
      const lexemes = safe?.map(lexemesOfWord);
      const chain = lexemes?.every((l) => l !== undefined) && chainOf(lexemes as string[][]);
      if (safe && lexemes && typeof chain === 'string') {
        const distinct = [...new Set((lexemes as string[][]).flat())].sort(byteOrder);
        units.push({ q: chain, lexemes: distinct });
        continue;
      }
      // Only ask for the unit whole when its words are known and still do not make a chain.
      if (safe && lexemes?.some((l) => l === undefined)) continue;
      const known = unitAnalysis.fresh(wordKey(language, unit.text));
      if (known) units.push(known);
      else missing.units.push(unit.text);
    }
  }
  const none = missing.words.length + missing.pieces.length + missing.units.length === 0;
  return none ? { analysis: { words, units } } : { missing };
}

/**
 * Select-list columns `words`, `pieces` and `units` analysing `missing` with the configuration `language`
 * (an SQL expression), as rememberAnalysis reads them.
 */
export function missingAnalysisSql(language: SQL, missing: Missing): SQL {
  return sql`(select jsonb_object_agg(w, tsvector_to_array(to_tsvector(${language}, w)))
      from unnest(${textArrayLiteral(missing.words)}::text[]) w) as words,
    (select jsonb_object_agg(p, (select coalesce(jsonb_agg(jsonb_build_array(v.lexeme,
        coalesce(array_length(v.positions, 1), 1))), '[]') from unnest(to_tsvector(${language}, p)) v))
      from unnest(${textArrayLiteral(missing.pieces)}::text[]) p) as pieces,
    (select jsonb_object_agg(u, jsonb_build_object('q', phraseto_tsquery(${language}, u)::text,
        'lexemes', to_jsonb(array(select v.lexeme from unnest(to_tsvector(${language}, u)) v))))
      from unnest(${textArrayLiteral(missing.units)}::text[]) u) as units`;
}

/** Remembers what a statement analysed for `missing` (missingAnalysisSql's columns). */
export function rememberAnalysis(
  language: string,
  out: {
    words: Record<string, string[]> | null;
    pieces: Record<string, [string, number][]> | null;
    units: Record<string, AnalysedUnit> | null;
  },
): void {
  for (const [word, lexemes] of Object.entries(out.words ?? {}))
    wordLexemes.set(wordKey(language, word), lexemes);
  for (const [piece, analysed] of Object.entries(out.pieces ?? {}))
    pieceAnalysis.set(wordKey(language, piece), analysed);
  for (const [unit, analysed] of Object.entries(out.units ?? {}))
    unitAnalysis.set(wordKey(language, unit), analysed);
}

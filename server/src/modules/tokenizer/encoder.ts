import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { countPieceTokens, encodePiece } from './merge';
import { RankTable } from './ranks';

let table: RankTable | undefined;

/**
 * js-tiktoken's o200k_base file, read and parsed rather than imported: an imported module keeps its 2.2 MB source
 * and the 2.2 MB ranks string it defines for the life of the process (and of each thread that counts), in the heap
 * every major GC marks; read here, both are garbage once the rank table is built.
 */
function o200kBase(): TiktokenBPE {
  const file = createRequire(import.meta.url).resolve('js-tiktoken/ranks/o200k_base');
  const text = readFileSync(file, 'utf8');
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as TiktokenBPE;
}

/**
 * The o200k_base BPE (GPT-4o's) ranks, from the data bundled with js-tiktoken: nothing is downloaded. Built once
 * per process (and counting thread), at start-up.
 */
function ranks(): RankTable {
  if (!table) {
    const bpe = o200kBase();
    table = new RankTable(bpe.bpe_ranks);
    piecePattern = bpe.pat_str;
  }
  return table;
}

/** o200k's pre-tokenizer (a regular expression's source), kept when the ranks are built. */
let piecePattern: string | undefined;
function pieces(): RegExp {
  if (piecePattern === undefined) ranks();
  return new RegExp(piecePattern as string, 'ug');
}

let library: Tiktoken | undefined;
/**
 * js-tiktoken's own encoder for o200k_base: the reference the tests hold countTokens and encodeText to. Not
 * used by the product (it holds 66 MB of heap; see ranks.ts).
 */
export function libraryEncoder(): Tiktoken {
  library ??= new Tiktoken(o200kBase());
  return library;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8');
/**
 * Pieces remembered with their token counts, and the longest piece remembered (in UTF-16 units). Under 13
 * units V8 copies a substring; from 13 on it may keep a view into the whole text, and a remembered piece would
 * hold a whole prompt in memory.
 */
const MAX_KNOWN = 50_000;
const MAX_KNOWN_LENGTH = 12;
let counter: PieceCounter | undefined;

/**
 * Pieces (matches of the pre-tokenizer) longer than this many UTF-16 units are merged a window of this many
 * units at a time, as if each window were a piece of its own. Byte-pair merging must see a whole piece before it
 * can settle any part of it, so one unbroken run of 8 MB (a word of one letter, a run of spaces or of
 * punctuation) was one merge of 8 MB: 35 s and more than 256 MB of heap, with nowhere to pause. No piece of
 * ordinary text comes near this length (words, numbers of 3 digits, runs of punctuation or space); for such runs
 * the count can differ from the whole piece's by a token or so per window (none for a repeated letter, 8 of
 * which make a token), and every count and encoding here windows them the same way.
 */
export const PIECE_WINDOW = 2_048;

/**
 * Where counting a text span by span has got to: `at`, and while inside a long piece (counted window by window)
 * where that piece ends; -1 otherwise. Starts as `{ at: 0, pieceEnd: -1 }`.
 */
export interface SpanCursor {
  at: number;
  pieceEnd: number;
}

export function newCursor(): SpanCursor {
  return { at: 0, pieceEnd: -1 };
}

/**
 * How many tokens a text is. The text is all ordinary text: a special token's spelling in a message
 * (`<|endoftext|>`) is counted as the characters it is, as OpenAI's API does, where `encode` would throw.
 * This is js-tiktoken's `encode(text, [], []).length` (a test holds them equal) without what `encode` rebuilds
 * on every call (two regular expressions and two sets, most of its cost for a short message) and with the
 * ranks in typed arrays (ranks.ts); pieces longer than PIECE_WINDOW are counted in windows.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= new PieceCounter(ranks());
  return counter.count(text, newCursor(), text.length);
}

/**
 * The fewest tokens a text can be, at once: no token is longer than the BPE's longest (in UTF-8 bytes, and a
 * UTF-16 unit is at least one byte). A prompt whose fewest is past a model's context needs no counting.
 */
export function fewestTokens(text: string): number {
  return Math.ceil(text.length / ranks().maxTokenBytes);
}

/**
 * Counts part of a text, from the cursor on, until a piece (or a long piece's window) ends at or past
 * `cursor.at + chars`, and moves the cursor there. Counting a text span by span gives exactly what countTokens
 * gives for the whole: a span ends where a piece or a window ends, and a cursor inside a long piece goes on with
 * its windows.
 */
export function countTokenSpan(text: string, cursor: SpanCursor, chars: number): number {
  counter ??= new PieceCounter(ranks());
  return counter.count(text, cursor, cursor.at + chars);
}

/** o200k's pre-tokenizer: the pieces BPE merges within. `matchAll` works on a copy, so one serves every call. */
let piecesOfText: RegExp | undefined;

/** The tokens of a text, all of it ordinary text (js-tiktoken's `encode(text, [], [])`, long pieces windowed). */
export function encodeText(text: string): number[] {
  const table = ranks();
  const out: number[] = [];
  piecesOfText ??= pieces();
  for (const match of text.matchAll(piecesOfText)) {
    const word = match[0];
    for (let at = 0; at < word.length; ) {
      const end = windowEnd(word, at, word.length);
      encodePiece(utf8.encode(at === 0 && end === word.length ? word : word.slice(at, end)), table, out);
      at = end;
    }
  }
  return out;
}

/** Where the window of a long piece that starts at `from` ends: PIECE_WINDOW on, not splitting a surrogate pair. */
function windowEnd(text: string, from: number, pieceEnd: number): number {
  let end = from + PIECE_WINDOW;
  if (end >= pieceEnd) return pieceEnd;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return end;
}

/** The text of tokens; bytes that do not make whole characters become U+FFFD. */
export function decodeTokens(tokens: readonly number[]): string {
  const table = ranks();
  const parts: Uint8Array[] = [];
  let length = 0;
  for (const token of tokens) {
    const bytes = table.bytesOf(token);
    if (!bytes) continue;
    parts.push(bytes);
    length += bytes.length;
  }
  const all = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return utf8Decoder.decode(all);
}

/** Splits text into the BPE's pieces (its regular expression) and counts each piece's tokens. */
class PieceCounter {
  private readonly pattern = pieces();
  /**
   * The same pattern, sticky: `test` at `at` says whether a piece starts there and `lastIndex` where it ends, with
   * no match array made (exec's array, with its index and input, was most of what counting a short prompt
   * allocated). Where no piece starts at `at`, the global pattern's `exec` finds the next one, as before: a
   * leftmost match that starts at `at` is the sticky match, the same alternatives tried in the same order.
   */
  private readonly stickyPattern = new RegExp(this.pattern.source, 'uy');
  /**
   * Pieces (words, mostly) already counted: text repeats them, and a hit skips the UTF-8 encoding and the
   * merge. Bounded; emptied when full.
   */
  private readonly known = new Map<string, number>();

  constructor(private readonly table: RankTable) {}

  /**
   * The previous window of a long piece, as UTF-8, and its tokens: a run of one character repeats the same
   * window, counted once. A copy, so that it holds no prompt in memory.
   */
  private lastWindow: Uint8Array = new Uint8Array(0);
  private lastWindowTokens = 0;

  count(text: string, cursor: SpanCursor, until: number): number {
    const { table, pattern, stickyPattern: sticky, known } = this;
    let count = 0;
    let at = cursor.at;
    while (at < text.length) {
      if (cursor.pieceEnd > at) {
        const end = windowEnd(text, at, cursor.pieceEnd);
        count += this.countWindow(utf8.encode(text.slice(at, end)));
        at = end;
        if (at >= cursor.pieceEnd) cursor.pieceEnd = -1;
        if (at >= until) break;
        continue;
      }
      let start = at;
      let word: string;
      sticky.lastIndex = at;
      if (sticky.test(text)) word = text.slice(at, sticky.lastIndex);
      else {
        pattern.lastIndex = at;
        const match = pattern.exec(text);
        if (match === null) {
          at = text.length;
          break;
        }
        start = match.index;
        word = match[0];
      }
      if (word.length === 0) {
        // Never with o200k's pattern; guards the loop should another pattern match the empty string.
        at = start + 1;
        continue;
      }
      if (word.length > PIECE_WINDOW) {
        at = start;
        cursor.pieceEnd = at + word.length;
        continue;
      }
      const seen = known.get(word);
      if (seen !== undefined) count += seen;
      else {
        const piece = utf8.encode(word);
        const tokens = table.rank(piece, 0, piece.length) >= 0 ? 1 : countPieceTokens(piece, table);
        if (word.length <= MAX_KNOWN_LENGTH) {
          if (known.size >= MAX_KNOWN) known.clear();
          known.set(word, tokens);
        }
        count += tokens;
      }
      at = start + word.length;
      if (at >= until) break;
    }
    cursor.at = at;
    return count;
  }

  private countWindow(bytes: Uint8Array): number {
    const last = this.lastWindow;
    if (bytes.length === last.length && Buffer.compare(bytes, last) === 0) return this.lastWindowTokens;
    const tokens = this.table.rank(bytes, 0, bytes.length) >= 0 ? 1 : countPieceTokens(bytes, this.table);
    this.lastWindow = bytes;
    this.lastWindowTokens = tokens;
    return tokens;
  }
}

import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { countPieceTokens, encodePiece } from './merge';
import { RankTable } from './ranks';

let table: RankTable | undefined;

/**
 * The o200k_base BPE (GPT-4o's) ranks, from the data bundled with js-tiktoken: nothing is downloaded. Built once
 * per process (and counting thread), at start-up.
 */
function ranks(): RankTable {
  table ??= new RankTable(o200kBase.bpe_ranks);
  return table;
}

let library: Tiktoken | undefined;
/**
 * js-tiktoken's own encoder for o200k_base: the reference the tests hold countTokens and encodeText to. Not
 * used by the product (it holds 66 MB of heap; see ranks.ts).
 */
export function libraryEncoder(): Tiktoken {
  library ??= new Tiktoken(o200kBase);
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
 * How many tokens a text is. The text is all ordinary text: a special token's spelling in a message
 * (`<|endoftext|>`) is counted as the characters it is, as OpenAI's API does, where `encode` would throw.
 * This is js-tiktoken's `encode(text, [], []).length` (a test holds them equal) without what `encode` rebuilds
 * on every call (two regular expressions and two sets, most of its cost for a short message) and with the
 * ranks in typed arrays (ranks.ts).
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= new PieceCounter(ranks());
  return counter.count(text, 0, text.length);
}

/**
 * Counts part of a text: its pieces from `from` on, until one ends at or past `from + chars`. `from` is 0 or where
 * the previous call on the same text stopped (`end`), so that counting a text span by span gives exactly what
 * countTokens gives for the whole: a span ends where a piece ends, never inside one.
 */
export function countTokenSpan(text: string, from: number, chars: number): { tokens: number; end: number } {
  counter ??= new PieceCounter(ranks());
  const tokens = counter.count(text, from, from + chars);
  return { tokens, end: counter.end };
}

/** o200k's pre-tokenizer: the pieces BPE merges within. `matchAll` works on a copy, so one serves every call. */
const PIECES = new RegExp(o200kBase.pat_str, 'ug');

/** The tokens of a text, all of it ordinary text (js-tiktoken's `encode(text, [], [])`). */
export function encodeText(text: string): number[] {
  const table = ranks();
  const out: number[] = [];
  for (const match of text.matchAll(PIECES)) {
    if (match[0].length > 0) encodePiece(utf8.encode(match[0]), table, out);
  }
  return out;
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
  /** Where the last count stopped: the end of its last piece, or the text's length. */
  end = 0;
  private readonly pattern = new RegExp(o200kBase.pat_str, 'ug');
  /**
   * Pieces (words, mostly) already counted: text repeats them, and a hit skips the UTF-8 encoding and the
   * merge. Bounded; emptied when full.
   */
  private readonly known = new Map<string, number>();

  constructor(private readonly table: RankTable) {}

  count(text: string, from: number, until: number): number {
    const { table, pattern, known } = this;
    let count = 0;
    this.end = text.length;
    pattern.lastIndex = from;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const word = match[0];
      if (word.length === 0) {
        // Never with o200k's pattern; guards the loop should another pattern match the empty string.
        pattern.lastIndex += 1;
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
      if (pattern.lastIndex >= until) {
        this.end = pattern.lastIndex;
        break;
      }
    }
    return count;
  }
}

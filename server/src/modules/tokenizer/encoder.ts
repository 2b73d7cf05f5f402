import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { countPieceTokens } from './merge';

let shared: Tiktoken | undefined;

/**
 * The o200k_base BPE (GPT-4o's), from the ranks bundled with js-tiktoken: nothing is downloaded. Building it takes
 * about half a second, so it is built once per process and shared.
 */
export function encoder(): Tiktoken {
  shared ??= new Tiktoken(o200kBase);
  return shared;
}

/** The merge ranks the encoder built (byte values joined by commas → rank); undefined if its layout changed. */
function ranksOf(tiktoken: Tiktoken): Map<string, number> | undefined {
  const map = (tiktoken as unknown as { rankMap?: unknown }).rankMap;
  return map instanceof Map && map.size > 0 ? (map as Map<string, number>) : undefined;
}

const utf8 = new TextEncoder();
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
 * This is `encode(text, [], []).length` (a test holds them equal) without what `encode` rebuilds on every
 * call: two regular expressions and two sets, most of its cost for a short message.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= new PieceCounter(encoder());
  return counter.count(text, 0, text.length);
}

/**
 * Counts part of a text: its pieces from `from` on, until one ends at or past `from + chars`. `from` is 0 or where
 * the previous call on the same text stopped (`end`), so that counting a text span by span gives exactly what
 * countTokens gives for the whole: a span ends where a piece ends, never inside one.
 */
export function countTokenSpan(text: string, from: number, chars: number): { tokens: number; end: number } {
  counter ??= new PieceCounter(encoder());
  const tokens = counter.count(text, from, from + chars);
  return { tokens, end: counter.end };
}

/** Splits text into the BPE's pieces (its regular expression) and counts each piece's tokens. */
class PieceCounter {
  /** Where the last count stopped: the end of its last piece, or the text's length. */
  end = 0;
  private readonly ranks: Map<string, number> | undefined;
  private readonly pattern: RegExp;
  /** No token is longer than this many bytes: longer spans need no look-up. */
  private readonly maxTokenBytes: number = 1;
  /**
   * Pieces (words, mostly) already counted: text repeats them, and a hit skips the UTF-8 encoding, the key
   * string and the merge. Bounded; emptied when full.
   */
  private readonly known = new Map<string, number>();

  constructor(private readonly tiktoken: Tiktoken) {
    this.ranks = ranksOf(tiktoken);
    this.pattern = new RegExp(o200kBase.pat_str, 'ug');
    for (const key of this.ranks?.keys() ?? []) {
      this.maxTokenBytes = Math.max(this.maxTokenBytes, key.split(',').length);
    }
  }

  count(text: string, from: number, until: number): number {
    const { ranks, pattern, known, maxTokenBytes } = this;
    if (!ranks) {
      // The library's own layout changed: its encode, on the whole text at once.
      this.end = text.length;
      return from === 0 ? this.tiktoken.encode(text, [], []).length : 0;
    }
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
        const tokens =
          piece.length <= maxTokenBytes && ranks.has(piece.join(','))
            ? 1
            : countPieceTokens(piece, ranks, maxTokenBytes);
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

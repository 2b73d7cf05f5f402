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
let counter: ((text: string) => number) | undefined;

/**
 * How many tokens a text is. The text is all ordinary text: a special token's spelling in a message
 * (`<|endoftext|>`) is counted as the characters it is, as OpenAI's API does, where `encode` would throw.
 * This is `encode(text, [], []).length` (a test holds them equal) without what `encode` rebuilds on every
 * call: two regular expressions and two sets, most of its cost for a short message.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= makeCounter(encoder());
  return counter(text);
}

function makeCounter(tiktoken: Tiktoken): (text: string) => number {
  const ranks = ranksOf(tiktoken);
  if (!ranks) return (text) => tiktoken.encode(text, [], []).length;
  const pattern = new RegExp(o200kBase.pat_str, 'ug');
  // No token is longer than this many bytes: longer spans need no look-up.
  let maxTokenBytes = 1;
  for (const key of ranks.keys()) maxTokenBytes = Math.max(maxTokenBytes, key.split(',').length);
  // Pieces (words, mostly) already counted: text repeats them, and a hit skips the UTF-8 encoding, the key
  // string and the merge. Bounded; emptied when full.
  const known = new Map<string, number>();
  return (text) => {
    let count = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const word = match[0];
      if (word.length === 0) {
        // Never with o200k's pattern; guards the loop should another pattern match the empty string.
        pattern.lastIndex += 1;
        continue;
      }
      const seen = known.get(word);
      if (seen !== undefined) {
        count += seen;
        continue;
      }
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
    return count;
  };
}

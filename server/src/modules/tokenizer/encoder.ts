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
  return (text) => {
    let count = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0].length === 0) {
        // Never with o200k's pattern; guards the loop should another pattern match the empty string.
        pattern.lastIndex += 1;
        continue;
      }
      const piece = utf8.encode(match[0]);
      count +=
        piece.length <= maxTokenBytes && ranks.has(piece.join(','))
          ? 1
          : countPieceTokens(piece, ranks, maxTokenBytes);
    }
    return count;
  };
}

import { describe, expect, it } from 'vitest';
import { expectedPhraseMatches, MAX_EXPECTED, parsePhrase } from './phrase';

describe('phrase chains', () => {
  it("reads phraseto_tsquery's chains with their distances", () => {
    expect(parsePhrase("'river' <-> 'stone'")).toEqual({ lexemes: ['river', 'stone'], offsets: [0, 1] });
    expect(parsePhrase("'river' <3> 'stone' <-> 'river'")).toEqual({
      lexemes: ['river', 'stone', 'river'],
      offsets: [0, 3, 4],
    });
    // Quotes doubled and backslashes escaped in tsquery text.
    expect(parsePhrase("'o''neil' <-> 'a\\\\b'")).toEqual({ lexemes: ["o'neil", 'a\\b'], offsets: [0, 1] });
  });

  it('leaves everything else to the document check', () => {
    for (const text of [
      "'river'",
      '',
      "'river' & 'stone'",
      "'river' <-> 'stone':*",
      "'river':A <-> 'stone'",
      "( 'a' | 'b' ) <-> 'c'",
      "'river' <->",
      "'river' <-> 'stone",
    ]) {
      expect(parsePhrase(text), text).toBeUndefined();
    }
  });

  it('expects fewer matches for rarer words and longer chains', () => {
    const n = 100_000;
    const common = expectedPhraseMatches([90_000, 90_000], n, 85);
    const rarer = expectedPhraseMatches([20_000, 20_000], n, 85);
    const longer = expectedPhraseMatches([20_000, 20_000, 20_000], n, 85);
    // Two words in 90 % of the documents: past the threshold, top-k answers; 20 % each: positions.
    expect(common).toBeGreaterThan(MAX_EXPECTED);
    expect(rarer).toBeLessThan(MAX_EXPECTED);
    expect(common).toBeLessThanOrEqual(n);
    expect(rarer).toBeLessThan(common);
    expect(longer).toBeLessThan(rarer);
    expect(expectedPhraseMatches([n, n], n, 85)).toBeLessThanOrEqual(n);
  });
});

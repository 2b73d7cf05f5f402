import { describe, expect, it } from 'vitest';
import { tokens } from './snippet';

/** The regular expression the scanner replaces, as the reference. */
const reference = (text: string) =>
  [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    word: m[0].toLowerCase(),
  }));

describe('snippet tokens', () => {
  it('are the runs of letters and digits, as [\\p{L}\\p{N}]+ finds them', () => {
    const pieces = [
      'Flow',
      ' ',
      'real-time',
      'Häuser',
      '東京',
      '𝒳y',
      '2024',
      '—',
      "it's",
      '\u0301',
      'ÉCOLE',
      '!',
      '\n',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let k = 0; k < 300; k++) {
      const text = Array.from(
        { length: Math.floor(random() * 30) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      expect(tokens(text), text).toEqual(reference(text));
    }
  });
});

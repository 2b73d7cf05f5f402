import { describe, expect, it } from 'vitest';
import {
  countTokens,
  decodeTokens,
  libraryEncoder as encoder,
  encodeText,
  fewestTokens,
  PIECE_WINDOW,
} from './encoder';
import { countLongPromptTokens, countPromptTokens } from './messages';
import { countingThread } from './thread';

// The library's own encoder, the reference here, merges long pieces quadratically: seconds of CPU, far more on a
// busy machine than vitest's default 30 s allows.
describe('tokenizer', () => {
  it('counts BPE tokens, not characters', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    // A long run of one word merges into far fewer tokens than characters/4 would say.
    const text = 'tokenization '.repeat(100);
    expect(countTokens(text)).toBeLessThan(text.length / 4);
    expect(decodeTokens(encodeText('héllo 日本語'))).toBe('héllo 日本語');
  });

  it('counts chat framing as OpenAI does for gpt-4o', () => {
    // Known value: [{role:user, content:"hello world"}] is 3 + 1 + 2 + 3 = 9 prompt tokens on gpt-4o.
    expect(countPromptTokens([{ role: 'user', content: 'hello world' }])).toBe(9);
    expect(countPromptTokens([{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }])).toBe(9);
    expect(countPromptTokens([{ role: 'user', content: 'hello world', name: 'bob' }])).toBeGreaterThan(9);
  });

  it('counts exactly as the library encodes, special tokens counted as the text they are', () => {
    const samples = [
      'hello world',
      'Say hello to the benchmark.',
      '<|endoftext|> and <|endofprompt|> are text here',
      'héllo 日本語 emoji 🙂🙂🙂 and combining e\u0301',
      'function f(x) { return x * 2; } // comment\n\n\tindented',
      '   leading and trailing spaces   ',
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'x'.repeat(700),
      'ab'.repeat(300),
      'supercalifragilistic'.repeat(20),
      '日本語のテキスト'.repeat(30),
      '\u0000\uFFFD\uD83D lone surrogate',
      'SELECT * FROM "table" WHERE id = 42; -- 1234567890123',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 200; i++) {
      const length = Math.floor(random() * 60);
      samples.push(
        Array.from({ length }, () =>
          String.fromCodePoint(Math.floor(random() * (random() < 0.8 ? 128 : 0x3000))),
        ).join(''),
      );
    }
    // Long single words (one piece each, the heap merge): random letters and random CJK.
    for (let i = 0; i < 20; i++) {
      const alphabet = i % 2 === 0 ? 'abcdefghijklmnopqrstuvwxyz' : '日本語中文字符漢字';
      samples.push(
        Array.from({ length: 80 + i * 20 }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
      );
    }
    for (const text of samples) expect(countTokens(text), text).toBe(encoder().encode(text, [], []).length);
    // Again, with the pieces remembered from the first pass, and all of them in one text.
    for (const text of samples) expect(countTokens(text), text).toBe(encoder().encode(text, [], []).length);
    const all = samples.join(' ');
    expect(countTokens(all)).toBe(encoder().encode(all, [], []).length);
    expect(() => countTokens('<|endoftext|>')).not.toThrow();
    // The simulator's tokens are the library's, and decode back to the text.
    for (const text of samples) {
      const tokens = encodeText(text);
      expect(tokens, text).toEqual(encoder().encode(text, [], []));
      expect(decodeTokens(tokens)).toBe(encoder().decode(tokens));
    }
    expect(encodeText(all)).toEqual(encoder().encode(all, [], []));
  }, 120_000);

  it('a very long word does not hold the event loop: 200,000 letters are counted (the quadratic merge took minutes for 30,000)', () => {
    const word = 'x'.repeat(200_000);
    expect(countTokens(word)).toBe(25_000);
    expect(countTokens('ab'.repeat(100_000))).toBeGreaterThan(0);
  });

  it('counts pieces longer than a window window by window, as encodeText encodes them', () => {
    let seed = 11;
    const letter = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 'abcdefghijklmnopqrstuvwxyz'[seed % 26] as string;
    };
    const random = Array.from({ length: PIECE_WINDOW + 333 }, letter).join('');
    const windows: string[] = [];
    for (let at = 0; at < random.length; at += PIECE_WINDOW)
      windows.push(random.slice(at, at + PIECE_WINDOW));
    // Each window is merged as a piece of its own: the sum of the windows' own counts.
    const expected = windows.reduce((sum, w) => sum + encoder().encode(w, [], []).length, 0);
    expect(countTokens(random)).toBe(expected);
    expect(encodeText(random)).toEqual(windows.flatMap((w) => encoder().encode(w, [], [])));
    // Within a token a window of the whole piece's exact count.
    const exact = encoder().encode(random, [], []).length;
    expect(Math.abs(countTokens(random) - exact)).toBeLessThanOrEqual(windows.length);
    // A window never splits a surrogate pair: emoji in a run of punctuation are whole in their windows.
    const emoji = '🙂'.repeat(PIECE_WINDOW);
    expect(decodeTokens(encodeText(emoji))).toBe(emoji);
    expect(countTokens(emoji)).toBe(encodeText(emoji).length);
    // 8 MB of one letter, one piece: a million tokens, exactly (8 letters a token, and a window holds 256).
    expect(countTokens('x'.repeat(8 << 20))).toBe(1 << 20);
  }, 120_000);
});

describe('the fewest tokens a prompt can be', () => {
  it('is never more than the count, for every kind of run and text', () => {
    const texts = [
      ' '.repeat(100_000),
      'x'.repeat(100_000),
      '語'.repeat(20_000),
      '🙂'.repeat(10_000),
      'The quick brown fox jumps over the lazy dog. '.repeat(2_000),
      '=\n'.repeat(30_000),
    ];
    for (const text of texts) {
      expect(fewestTokens(text)).toBeGreaterThan(0);
      expect(fewestTokens(text)).toBeLessThanOrEqual(countTokens(text));
    }
    // A run of spaces is as long as tokens get: the bound is reached.
    expect(fewestTokens(' '.repeat(128 * 1_000))).toBe(countTokens(' '.repeat(128 * 1_000)));
  });

  it('refuses a prompt already past the limit at once, without counting it on the thread', async () => {
    const answered = countingThread.answered;
    const messages = [{ role: 'user' as const, content: 'x'.repeat(4 << 20) }];
    const count = await countLongPromptTokens(messages, undefined, 'owner', 4_096);
    expect(count.complete).toBe(false);
    expect(count.tokens).toBeGreaterThanOrEqual(4_096);
    expect(count.tokens).toBeLessThanOrEqual(countPromptTokens(messages));
    expect(countingThread.answered).toBe(answered);
    // Under the limit's reach by length, the thread counts it.
    const short = [{ role: 'user' as const, content: 'x'.repeat(40_000) }];
    expect(await countLongPromptTokens(short, undefined, 'owner', 100_000)).toEqual({
      tokens: countPromptTokens(short),
      complete: true,
    });
    expect(countingThread.answered).toBe(answered + 1);
  });
});

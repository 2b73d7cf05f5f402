import { describe, expect, it } from 'vitest';
import { LARGE_TEXT_CHARS, restoreLargeTexts, takeLargeTexts } from './large-texts';

describe('long strings of a parsed body sent back as bytes', () => {
  it('come back equal, wherever they were, whatever characters cut the slices', async () => {
    const long = (unit: string) => unit.repeat(Math.ceil((LARGE_TEXT_CHARS * 3) / unit.length));
    const protoText = long('ü');
    const body = {
      a: long('x'),
      nested: [{ text: long('語') }, 'short', { deep: { emoji: long('a🙂é') } }],
      ['__proto__']: protoText,
    };
    const value = structuredClone(body);
    Object.defineProperty(value, '__proto__', {
      value: protoText,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const taken = takeLargeTexts(value);
    expect(taken.map((t) => t.path.join('.')).sort()).toEqual([
      '__proto__',
      'a',
      'nested.0.text',
      'nested.2.deep.emoji',
    ]);
    expect((value as { a: string }).a).toBe('');
    await restoreLargeTexts(value, structuredClone(taken));
    expect((value as { a: string }).a).toBe(body.a);
    expect(value.nested).toEqual(body.nested);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe(protoText);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('leave short strings in place', () => {
    const value = { a: 'x'.repeat(LARGE_TEXT_CHARS - 1) };
    expect(takeLargeTexts(value)).toEqual([]);
    expect(value.a.length).toBe(LARGE_TEXT_CHARS - 1);
  });
});

import { describe, expect, it } from 'vitest';
import { parseQuery } from './syntax';

describe('parseQuery', () => {
  it('reads plain words, keeping repeats, and never fails on punctuation', () => {
    expect(parseQuery('What is TSS (Time Sharing System)?')).toEqual({
      words: ['What', 'is', 'TSS', '(Time', 'Sharing', 'System)?'],
      clauses: [],
    });
    expect(parseQuery('a-b e-mail ---  + - "').words).toEqual(['a-b', 'e-mail', '---', '+', '-']);
  });
  it('reads +required, -excluded and "phrases", unclosed quotes running to the end', () => {
    expect(parseQuery('+fox -cat "lazy dog" -"big cat" +"x y').clauses).toEqual([
      { occur: 'must', units: [{ text: 'fox', phrase: false }] },
      { occur: 'must_not', units: [{ text: 'cat', phrase: false }] },
      { occur: 'should', units: [{ text: 'lazy dog', phrase: true }] },
      { occur: 'must_not', units: [{ text: 'big cat', phrase: true }] },
      { occur: 'must', units: [{ text: 'x y', phrase: true }] },
    ]);
  });
  it('groups operands joined by OR; a dangling OR is dropped', () => {
    expect(parseQuery('a OR "b c" OR d e OR').clauses).toEqual([
      {
        occur: 'should',
        units: [
          { text: 'a', phrase: false },
          { text: 'b c', phrase: true },
          { text: 'd', phrase: false },
        ],
      },
    ]);
    expect(parseQuery('a OR b').words).toEqual([]);
    expect(parseQuery('OR e OR').words).toEqual(['e']);
  });
  it('counts a repeated part once, whatever its case and spacing', () => {
    const parsed = parseQuery('"flow "'.repeat(200));
    expect(parsed.clauses).toEqual([{ occur: 'should', units: [{ text: 'flow ', phrase: true }] }]);
    expect(parseQuery('+Fox +fox -"a  b" -"A b"').clauses).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe('toCsv', () => {
  it('quotes cells with commas, quotes and line breaks, and leaves empty cells empty', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['line\nbreak', null],
          [3, 0.5],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n3,0.5\r\n');
  });

  it('defuses text a spreadsheet would run as a formula, not negative numbers', () => {
    expect(toCsv(['m'], [['=HYPERLINK("x")'], ['@SUM(A1)'], ['+1'], [-2]])).toBe(
      'm\r\n"\'=HYPERLINK(""x"")"\r\n\'@SUM(A1)\r\n\'+1\r\n-2\r\n',
    );
  });
});

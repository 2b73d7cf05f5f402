import { describe, expect, it } from 'vitest';
import { decodeTsvector, tsvectorLiteral } from './analyse';

// tsvectorsend(setweight(to_tsvector('english', 'River flows café'), 'A')
//   || setweight(to_tsvector('english', 'the river rivers'), 'B')), printed by PostgreSQL 15;
// as text: 'café':3A 'flow':2A 'river':1A,5B,6B
const SENT = Buffer.from('00000003636166c3a9000001c003666c6f77000001c0027269766572000003c00180058006', 'hex');

describe('decodeTsvector', () => {
  it('reads frequencies by field, lengths and positions from the binary form', () => {
    expect(decodeTsvector(SENT)).toEqual({
      tf: { café: [1, 0], flow: [1, 0], river: [1, 2] },
      pos: { café: [3], flow: [2], river: [1, 5, 6] },
      titleLen: 3,
      bodyLen: 2,
    });
  });

  it('reads an empty tsvector and refuses a truncated one', () => {
    expect(decodeTsvector(Buffer.from('00000000', 'hex'))).toEqual({
      tf: {},
      pos: {},
      titleLen: 0,
      bodyLen: 0,
    });
    expect(() => decodeTsvector(SENT.subarray(0, SENT.length - 1))).toThrow(/truncated/);
    expect(() => decodeTsvector(SENT.subarray(0, 9))).toThrow(/truncated/);
  });
});

describe('tsvectorLiteral', () => {
  it('prints the binary form as tsvectorout does: lexemes quoted, positions with weight letters', () => {
    expect(tsvectorLiteral(SENT)).toBe("'café':3A 'flow':2A 'river':1A,5B,6B");
    expect(tsvectorLiteral(Buffer.from('00000000', 'hex'))).toBe('');
  });

  it('doubles quotes, escapes backslashes, writes C and no letter for D', () => {
    // it's at 1 (weight D); a\b at 2 (weight C) and 3 (D).
    const sent = Buffer.concat([
      Buffer.from('00000002', 'hex'),
      Buffer.from("it's", 'utf8'),
      Buffer.from('0000010001', 'hex'),
      Buffer.from('a\\b', 'utf8'),
      Buffer.from('00000240020003', 'hex'),
    ]);
    expect(tsvectorLiteral(sent)).toBe("'it''s':1 'a\\\\b':2C,3");
    expect(() => tsvectorLiteral(sent.subarray(0, sent.length - 1))).toThrow(/truncated/);
  });
});

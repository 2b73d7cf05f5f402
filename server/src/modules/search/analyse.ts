import { type SQL, sql } from 'drizzle-orm';

/**
 * The analysis every document goes through, as SQL over a row source with `title` and `body`:
 * title lexemes weighted A and body lexemes weighted B in one tsvector, then per lexeme its
 * frequency in each field (`tf`), and the field lengths in lexeme occurrences (stop words excluded).
 * Note Postgres keeps at most 256 positions per lexeme, which caps a term's frequency; BM25
 * saturates long before that.
 */
export function analysedRows(source: SQL, language: string): SQL {
  // `offset 0` keeps the subquery from being pulled up: pulled up, its tsvector expression was copied
  // into each place that reads `a.tsv` and every document was analysed twice (half of a write's time).
  return sql`
    select a.*, s.tf, s.title_len, s.body_len
    from (
      select src.*,
        setweight(to_tsvector(${language}::regconfig, src.title), 'A')
          || setweight(to_tsvector(${language}::regconfig, src.body), 'B') as tsv
      from (${source}) src
      offset 0
    ) a
    cross join lateral (
      select coalesce(jsonb_object_agg(u.lexeme, jsonb_build_array(c.ta, c.tb)), '{}'::jsonb) as tf,
        coalesce(sum(c.ta), 0)::int as title_len,
        coalesce(sum(c.tb), 0)::int as body_len
      from unnest(a.tsv) u
      cross join lateral (
        select count(*) filter (where w = 'A')::int as ta, count(*) filter (where w = 'B')::int as tb
        from unnest(u.weights) w
      ) c
    ) s`;
}

/** What the postings need of an analysed document, read from its tsvector. */
export interface AnalysedTerms {
  /** Lexeme → [occurrences in the title (weight A), in the body (weight B)], as `analysedRows`' tf. */
  tf: Record<string, [number, number]>;
  /** Lexeme → its positions, ascending. */
  pos: Record<string, number[]>;
  titleLen: number;
  bodyLen: number;
}

const WEIGHT_A = 3;
const WEIGHT_B = 2;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a tsvector in Postgres's binary form (`tsvectorsend`: the lexeme count, then per lexeme its
 * UTF-8 text and a zero byte, the number of positions and each position as a 16-bit word: weight in
 * the top 2 bits, position in the other 14; integers big-endian). The text form (`tsv::text`) cost
 * more to print in SQL and to parse here than analysing the document did.
 */
export function decodeTsvector(bytes: Uint8Array): AnalysedTerms {
  const out: AnalysedTerms = { tf: {}, pos: {}, titleLen: 0, bodyLen: 0 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (): never => {
    throw new Error('truncated tsvector');
  };
  if (bytes.length < 4) fail();
  const count = view.getInt32(0);
  let at = 4;
  for (let k = 0; k < count; k++) {
    const end = bytes.indexOf(0, at);
    if (end < 0 || end + 2 > bytes.length) fail();
    const lexeme = utf8.decode(bytes.subarray(at, end));
    const n = view.getUint16(end + 1);
    at = end + 3;
    if (at + 2 * n > bytes.length) fail();
    const positions: number[] = new Array(n);
    let title = 0;
    let body = 0;
    for (let i = 0; i < n; i++) {
      const word = view.getUint16(at + 2 * i);
      positions[i] = word & 0x3fff;
      const weight = word >> 14;
      if (weight === WEIGHT_A) title++;
      else if (weight === WEIGHT_B) body++;
    }
    at += 2 * n;
    out.tf[lexeme] = [title, body];
    out.pos[lexeme] = positions;
    out.titleLen += title;
    out.bodyLen += body;
  }
  return out;
}

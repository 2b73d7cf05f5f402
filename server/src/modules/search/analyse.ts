import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { byteaOf } from './codec';
import { queryRows, textArrayLiteral } from './sql';

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

/**
 * Analyses documents' title and body (title lexemes weighted A, body lexemes weighted B, as
 * `analysedRows`) and returns each one's tsvector in binary form (`tsvectorsend`), in the order given.
 * Analysis alone: the frequencies, lengths and positions are read from these bytes in TypeScript
 * (`decodeTsvector`), and the tsvector goes back into the insert as text (`tsvectorLiteral`). Building
 * the `tf` map in SQL (unnest, an aggregate a lexeme, jsonb) cost as much as the analysis itself.
 */
export async function analyseDocuments(
  db: Db,
  language: string,
  docs: { title: string; body: string }[],
): Promise<Uint8Array[]> {
  if (docs.length === 0) return [];
  const rows = await queryRows<{ tsv: unknown }>(
    db,
    sql`select tsvectorsend(setweight(to_tsvector(${language}::regconfig, x.title), 'A')
          || setweight(to_tsvector(${language}::regconfig, x.body), 'B')) as tsv
        from unnest(${textArrayLiteral(docs.map((d) => d.title))}::text[],
          ${textArrayLiteral(docs.map((d) => d.body))}::text[]) with ordinality as x(title, body, i)
        order by x.i`,
  );
  return rows.map((r) => byteaOf(r.tsv));
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
const WEIGHT_LETTERS = ['', 'C', 'B', 'A'];
const WEIGHT_B = 2;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A tsvector read from its binary form, with its text form when asked (`tsvectorLiteral`). */
interface ReadTsvector extends AnalysedTerms {
  literal: string;
}

const QUOTE = 39;
const BACKSLASH = 92;

/**
 * One pass over a tsvector's binary form (`tsvectorsend`: the lexeme count, then per lexeme its UTF-8
 * text and a zero byte, the number of positions and each position as a 16-bit word: weight in the top
 * 2 bits, position in the other 14; integers big-endian). A lexeme of ASCII bytes (most) is read
 * without a TextDecoder call, which cost more than the rest of the decoding.
 */
function readTsvector(bytes: Uint8Array, withLiteral: boolean): ReadTsvector {
  const out: ReadTsvector = { tf: {}, pos: {}, titleLen: 0, bodyLen: 0, literal: '' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (): never => {
    throw new Error('truncated tsvector');
  };
  if (bytes.length < 4) fail();
  const count = view.getInt32(0);
  const parts: string[] = withLiteral ? new Array(count) : [];
  let at = 4;
  for (let k = 0; k < count; k++) {
    let end = at;
    let ascii = true;
    let special = false;
    for (; end < bytes.length; end++) {
      const byte = bytes[end] as number;
      if (byte === 0) break;
      if (byte >= 0x80) ascii = false;
      else if (byte === QUOTE || byte === BACKSLASH) special = true;
    }
    if (end + 3 > bytes.length) fail();
    let lexeme = '';
    if (ascii) for (let i = at; i < end; i++) lexeme += String.fromCharCode(bytes[i] as number);
    else lexeme = utf8.decode(bytes.subarray(at, end));
    const n = view.getUint16(end + 1);
    at = end + 3;
    if (at + 2 * n > bytes.length) fail();
    const positions: number[] = new Array(n);
    let title = 0;
    let body = 0;
    let part = '';
    if (withLiteral) {
      part = `'${special ? lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''") : lexeme}'`;
    }
    for (let i = 0; i < n; i++) {
      const word = view.getUint16(at + 2 * i);
      const position = word & 0x3fff;
      positions[i] = position;
      const weight = word >> 14;
      if (weight === WEIGHT_A) title++;
      else if (weight === WEIGHT_B) body++;
      if (withLiteral) part += `${i === 0 ? ':' : ','}${position}${WEIGHT_LETTERS[weight]}`;
    }
    at += 2 * n;
    out.tf[lexeme] = [title, body];
    out.pos[lexeme] = positions;
    out.titleLen += title;
    out.bodyLen += body;
    if (withLiteral) parts[k] = part;
  }
  if (withLiteral) out.literal = parts.join(' ');
  return out;
}

/** Frequencies by field, positions and field lengths of a tsvector in binary form (`tsvectorsend`). */
export function decodeTsvector(bytes: Uint8Array): AnalysedTerms {
  const { literal: _, ...terms } = readTsvector(bytes, false);
  return terms;
}

/**
 * The same as decodeTsvector, and the tsvector's text form as `tsvectorout` prints it: each lexeme
 * special (quotes doubled, backslashes escaped), then its positions with their weight letters (none for
 * D). Postgres reads that back (`::tsvector`) into the same tsvector, far faster than it analyses the
 * text again, and far faster than building the `tf` map in SQL.
 */
export function decodeTsvectorWithLiteral(bytes: Uint8Array): AnalysedTerms & { literal: string } {
  return readTsvector(bytes, true);
}

/** The text form of a tsvector given in binary form (see decodeTsvectorWithLiteral). */
export const tsvectorLiteral = (bytes: Uint8Array): string => readTsvector(bytes, true).literal;

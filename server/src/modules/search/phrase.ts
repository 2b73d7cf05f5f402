import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { byteaOf, decodeBlock, decodePositions } from './blocks';
import type { QueryPlan } from './plan';
import { queryRows, type Scope, textArrayLiteral } from './sql';

/**
 * Phrases from positions. A query every match of which must contain a phrase (a quoted part that
 * is required, or the query's only part) used to be answered by checking `tsv @@ phrase` on every
 * document holding the phrase's words: for two frequent words thousands of documents visited to
 * keep a few hundred. Here the phrase's lexemes' blocks are read with their positions (blocks.ts),
 * and the documents whose positions hold the phrase are the candidates; only they are visited,
 * verified on the full tsquery and scored exactly (query.ts, `ords`).
 *
 * Exact: the positions are the tsvector's own, so every document matching the phrase is a
 * candidate, and whatever else a candidate is (dead ordinal, other required parts, excluded
 * parts, the filter) is decided by the same SQL as full scoring. Scoring all matches among a
 * superset of the matches is scoring all matches. When a phrase lexeme has a block without
 * positions (written before they were kept), the lists are too long to read, or the candidates
 * too many to visit, `undefined` tells the caller to take the other paths.
 */

/** Postings read at most over the phrase's lexemes (two of the most frequent words of 100k documents fit). */
export const MAX_PHRASE_POSTINGS = 400_000;
/** Candidates visited at most; past it every match is scored the usual way. */
export const MAX_PHRASE_CANDIDATES = 10_000;

/** A phrase as lexemes at offsets from the first: `'a' <-> 'b' <2> 'c'` is a@0, b@1, c@3. */
export interface PhraseChain {
  lexemes: string[];
  offsets: number[];
}

/**
 * Reads phraseto_tsquery's output when it is a plain chain of lexemes and distances; undefined for
 * anything else (a single lexeme, weights, prefixes, `&` or `|` from a dictionary that emits
 * several lexemes for one word), which the other paths answer.
 */
export function parsePhrase(text: string): PhraseChain | undefined {
  const lexemes: string[] = [];
  const offsets: number[] = [];
  let offset = 0;
  let i = 0;
  let expectLexeme = true;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  skip();
  while (i < text.length) {
    if (expectLexeme) {
      if (text[i] !== "'") return undefined;
      let lexeme = '';
      i++;
      for (;;) {
        const ch = text[i];
        if (ch === undefined) return undefined;
        if (ch === "'") {
          if (text[i + 1] === "'") {
            lexeme += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (ch === '\\') {
          const next = text[i + 1];
          if (next === undefined) return undefined;
          lexeme += next;
          i += 2;
          continue;
        }
        lexeme += ch;
        i++;
      }
      lexemes.push(lexeme);
      offsets.push(offset);
    } else {
      const match = /^<(-|\d+)>/.exec(text.slice(i));
      if (!match) return undefined;
      offset += match[1] === '-' ? 1 : Number(match[1]);
      i += match[0].length;
    }
    expectLexeme = !expectLexeme;
    skip();
  }
  return lexemes.length >= 2 && !expectLexeme ? { lexemes, offsets } : undefined;
}

interface PositionRow {
  term: string;
  n: number;
  data: unknown;
  pos: unknown;
}

/**
 * The ordinals (ascending) of the documents whose positions hold the phrase, or undefined when
 * positions cannot answer (see above). `terms`: the plan's scored terms with their document
 * frequencies; a phrase lexeme not among them is either absent from the collection or read
 * differently than planned, and is left to the document check.
 */
export async function phraseCandidates(
  db: Db,
  scope: Scope,
  chain: PhraseChain,
  terms: QueryPlan['terms'],
): Promise<number[] | undefined> {
  const dfs = new Map(terms.map((t) => [t.term, t.df]));
  const distinct = [...new Set(chain.lexemes)];
  let total = 0;
  for (const lexeme of distinct) {
    const df = dfs.get(lexeme);
    if (df === undefined || df <= 0) return undefined;
    total += df;
  }
  // df counts live documents; the blocks also hold dead postings until a merge drops them, which
  // the count of postings read below is checked against as well.
  if (total > MAX_PHRASE_POSTINGS) return undefined;
  const rows = await queryRows<PositionRow>(
    db,
    sql`select term, n, data, pos from search_blocks
        where account_id = ${scope.accountId} and collection = ${scope.collection}
          and term = any(${textArrayLiteral(distinct)}::text[])`,
  );
  // Per lexeme: ordinal → its positions (ordinals are unique across a term's runs).
  const lists = new Map<string, Map<number, Uint32Array>>(distinct.map((l) => [l, new Map()]));
  let read = 0;
  for (const row of rows) {
    if (row.pos === null || row.pos === undefined) return undefined;
    read += row.n;
    if (read > 2 * MAX_PHRASE_POSTINGS) return undefined;
    const block = decodeBlock(byteaOf(row.data), row.n);
    const positions = decodePositions(byteaOf(row.pos), row.n);
    const list = lists.get(row.term);
    if (!list) continue;
    for (let k = 0; k < block.n; k++) {
      list.set(
        block.ord[k] as number,
        positions.flat.subarray(positions.start[k] as number, positions.start[k + 1] as number),
      );
    }
  }
  // From the shortest list: each of its documents, each of its positions as the chain's anchor.
  let rarest = 0;
  for (let j = 1; j < chain.lexemes.length; j++) {
    const size = lists.get(chain.lexemes[j] as string)?.size ?? 0;
    if (size < (lists.get(chain.lexemes[rarest] as string)?.size ?? 0)) rarest = j;
  }
  const anchorList = lists.get(chain.lexemes[rarest] as string) ?? new Map<number, Uint32Array>();
  const anchorOffset = chain.offsets[rarest] as number;
  const out: number[] = [];
  for (const [ord, anchorPositions] of anchorList) {
    const perLexeme: Uint32Array[] = [];
    let all = true;
    for (const lexeme of chain.lexemes) {
      const p = lists.get(lexeme)?.get(ord);
      if (!p) {
        all = false;
        break;
      }
      perLexeme.push(p);
    }
    if (!all) continue;
    const found = anchorPositions.some((p) => {
      const start = p - anchorOffset;
      return chain.lexemes.every((_, j) =>
        (perLexeme[j] as Uint32Array).includes(start + (chain.offsets[j] as number)),
      );
    });
    if (found) {
      out.push(ord);
      if (out.length > MAX_PHRASE_CANDIDATES) return undefined;
    }
  }
  return out.sort((x, y) => x - y);
}

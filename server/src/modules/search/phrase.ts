import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { B, idf, K1, W_BODY, W_TITLE } from './bm25';
import { byteaOf, readQuotedLexeme, VarintReader } from './codec';
import type { QueryPlan } from './query-plan';
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
/**
 * Candidates visited at most; past it every match is scored the usual way. When the candidates' scores
 * are known from their postings (every scored term is a lexeme of the phrase) up to
 * MAX_SCORED_CANDIDATES are kept, and only the best of them are visited (phrase-rank.ts).
 */
export const MAX_PHRASE_CANDIDATES = 3_000;
export const MAX_SCORED_CANDIDATES = 100_000;

/**
 * The documents whose positions hold the phrase (ordinals, in no order), and, when every scored term is
 * a lexeme of the phrase, each one's score from its postings (the score of its live row, if live).
 */
export interface PhraseCandidates {
  ords: number[];
  scores: Float64Array | undefined;
}

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
      const quoted = readQuotedLexeme(text, i);
      if (!quoted) return undefined;
      i = quoted.end;
      const { lexeme } = quoted;
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

/** One lexeme's postings read: ordinals, and posting k's positions at flat[start[k]] .. flat[start[k+1] − 1]. */
interface PositionList {
  ords: Float64Array;
  /** Posting k's BM25F share of the score (its term's coefficient times the saturated tf), 0 for a term not scored. */
  shares: Float64Array;
  start: Uint32Array;
  flat: Uint32Array;
  /** Postings and positions filled so far. */
  count: number;
  positions: number;
}

/**
 * Appends a block's ordinals and positions to the list, decoding straight into its arrays (no
 * per-block column arrays: the frequencies and lengths are skipped). Formats: blocks.ts; throws
 * on malformed data as decodeBlock and decodePositions do.
 */
function appendBlock(
  list: PositionList,
  data: Uint8Array,
  pos: Uint8Array,
  n: number,
  share: (tt: number, tb: number, tl: number, bl: number) => number,
): void {
  const blockReader = new VarintReader(data, 'block');
  const positionReader = new VarintReader(pos, 'positions');
  const fromData = () => blockReader.next();
  const fromPos = () => positionReader.next();
  let ord = 0;
  for (let k = 0; k < n; k++) {
    ord += fromData();
    // Title tf, body tf, title length, body length: the posting's share of the score.
    list.shares[list.count] = share(fromData(), fromData(), fromData(), fromData());
    list.ords[list.count] = ord;
    list.start[list.count] = list.positions;
    list.count++;
    const m = fromPos();
    let position = 0;
    for (let q = 0; q < m; q++) {
      position += fromPos();
      list.flat[list.positions++] = position;
    }
  }
  if (!blockReader.done || !positionReader.done) throw new Error('search block longer than its count');
}

/**
 * Ordinal → posting index, open addressing over typed arrays: a Map of 100,000 numbers costs
 * several times more to fill (measured: the whole check went from ~220 to ~30 ms for two lists of
 * 35,000 and 71,000 postings).
 */
class OrdTable {
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;
  constructor(ords: Float64Array, count: number) {
    let size = 16;
    while (size < count * 2) size *= 2;
    this.keys = new Float64Array(size).fill(-1);
    this.values = new Int32Array(size);
    this.mask = size - 1;
    for (let k = 0; k < count; k++) {
      const ord = ords[k] as number;
      let slot = this.slot(ord);
      while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask;
      this.keys[slot] = ord;
      this.values[slot] = k;
    }
  }
  private slot(ord: number): number {
    return Math.imul((ord % 2_147_483_647) | 0, 0x9e3779b1) & this.mask;
  }
  /** The posting index of ord, or −1. */
  get(ord: number): number {
    let slot = this.slot(ord);
    for (;;) {
      const key = this.keys[slot];
      if (key === ord) return this.values[slot] as number;
      if (key === -1) return -1;
      slot = (slot + 1) & this.mask;
    }
  }
}

const hasPosition = (list: PositionList, k: number, position: number) => {
  const end = list.start[k + 1] as number;
  for (let i = list.start[k] as number; i < end; i++) if (list.flat[i] === position) return true;
  return false;
};

/**
 * How many documents would hold the phrase if words fell independently: a lexeme in df of n
 * documents of L lexemes on average occurs at a position with probability p = −ln(1 − df/n)/L
 * (Poisson), so the chain at a given place with Π p, in a document with 1 − exp(−L·Π p). Only
 * chooses the path: above MAX_EXPECTED, most documents holding the words hold the phrase and top-k
 * finds its page among the first it verifies, cheaper than reading the lists whole.
 */
export function expectedPhraseMatches(dfs: number[], n: number, length: number): number {
  const l = Math.max(length, 1);
  const product = dfs.reduce((x, df) => x * (-Math.log(Math.max(1 - Math.min(df, n) / n, 1e-9)) / l), 1);
  return n * (1 - Math.exp(-l * product));
}

/** Above this many expected matches (independence), top-k answers a phrase instead (see expectedPhraseMatches). */
export const MAX_EXPECTED = 600;

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
  plan: Pick<QueryPlan, 'terms' | 'n' | 'avgTitle' | 'avgBody'>,
): Promise<PhraseCandidates | undefined> {
  const { terms } = plan;
  const dfs = new Map(terms.map((t) => [t.term, t.df]));
  // Every scored term is a lexeme of the chain: a candidate's shares then sum to its whole score.
  const lexemeSet = new Set(chain.lexemes);
  const complete = terms.every((t) => lexemeSet.has(t.term));
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
  // Sizes first (a position takes at least one byte), then one pass decoding into typed arrays.
  const sizes = new Map<string, { postings: number; bytes: number }>(
    distinct.map((l) => [l, { postings: 0, bytes: 0 }]),
  );
  let read = 0;
  for (const row of rows) {
    if (row.pos === null || row.pos === undefined) return undefined;
    read += row.n;
    const size = sizes.get(row.term);
    if (size) {
      size.postings += row.n;
      size.bytes += byteaOf(row.pos).length;
    }
  }
  if (read > 2 * MAX_PHRASE_POSTINGS) return undefined;
  const lists = new Map<string, PositionList>();
  for (const [lexeme, size] of sizes) {
    lists.set(lexeme, {
      ords: new Float64Array(size.postings),
      shares: new Float64Array(size.postings),
      start: new Uint32Array(size.postings + 1),
      flat: new Uint32Array(size.bytes),
      count: 0,
      positions: 0,
    });
  }
  for (const row of rows) {
    const list = lists.get(row.term);
    if (list) appendBlock(list, byteaOf(row.data), byteaOf(row.pos), row.n, shareOf(plan, row.term));
  }
  for (const list of lists.values()) list.start[list.count] = list.positions;
  // From the shortest list: each of its documents, each of its positions as the chain's anchor.
  const chainLists = chain.lexemes.map((l) => lists.get(l) as PositionList);
  let anchor = 0;
  for (let j = 1; j < chainLists.length; j++) {
    if ((chainLists[j] as PositionList).count < (chainLists[anchor] as PositionList).count) anchor = j;
  }
  const tables = new Map<PositionList, OrdTable>();
  for (const list of chainLists) if (!tables.has(list)) tables.set(list, new OrdTable(list.ords, list.count));
  const anchorList = chainLists[anchor] as PositionList;
  const anchorOffset = chain.offsets[anchor] as number;
  const at = new Int32Array(chainLists.length);
  const distinctLists = [...new Set(chainLists)];
  const out: number[] = [];
  const scores: number[] = [];
  for (let a = 0; a < anchorList.count; a++) {
    const ord = anchorList.ords[a] as number;
    let all = true;
    for (let j = 0; j < chainLists.length; j++) {
      const k = (tables.get(chainLists[j] as PositionList) as OrdTable).get(ord);
      if (k < 0) {
        all = false;
        break;
      }
      at[j] = k;
    }
    if (!all) continue;
    let found = false;
    const end = anchorList.start[a + 1] as number;
    for (let i = anchorList.start[a] as number; i < end && !found; i++) {
      const first = (anchorList.flat[i] as number) - anchorOffset;
      found = chainLists.every((list, j) =>
        hasPosition(list, at[j] as number, first + (chain.offsets[j] as number)),
      );
    }
    if (found) {
      out.push(ord);
      let score = 0;
      for (const list of distinctLists)
        score += list.shares[(tables.get(list) as OrdTable).get(ord)] as number;
      scores.push(score);
      if (out.length > (complete ? MAX_SCORED_CANDIDATES : MAX_PHRASE_CANDIDATES)) return undefined;
    }
  }
  return { ords: out, scores: complete ? Float64Array.from(scores) : undefined };
}

/** Posting shares of one lexeme, as lists.ts computes them (0 for a lexeme that is not scored). */
function shareOf(plan: Pick<QueryPlan, 'terms' | 'n' | 'avgTitle' | 'avgBody'>, lexeme: string) {
  const term = plan.terms.find((t) => t.term === lexeme);
  const coef = term ? term.weight * idf(plan.n, term.df) : 0;
  return (tt: number, tb: number, tl: number, bl: number) => {
    const tfn =
      (W_TITLE * tt) / (1 - B + (B * tl) / plan.avgTitle) + (W_BODY * tb) / (1 - B + (B * bl) / plan.avgBody);
    return (coef * tfn * (K1 + 1)) / (K1 + tfn);
  };
}

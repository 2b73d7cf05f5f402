import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { B, W_BODY, W_TITLE } from './rank';
import { queryRows, type Scope, textArrayLiteral } from './sql';

/**
 * Compressed postings (table `search_blocks`). A term's postings in a collection are stored in
 * blocks of at most BLOCK_SIZE documents, each a bytea of unsigned LEB128 varints
 *   per posting, by ascending document ordinal: ord − previous ord (the first: ord), title tf,
 *   body tf, title length, body length
 * with the block's highest impact (postings.ts: the field-weighted, length-normalised tf with the
 * collection's reference averages) as a column, rounded up to float4. Column `pos` holds the same
 * postings' positions, in the same order: per posting the count, the first position, then the
 * gaps, as varints. They are the document tsvector's own positions (title then body, at most 256
 * a lexeme, as Postgres keeps them), so a phrase checked on them (phrase.ts) agrees with
 * `tsv @@ phrase`. `pos` is null in blocks written before positions existed, and in a run merged
 * from any such block; phrase.ts then leaves the query to the other paths.
 *
 * Layout, for top-k (topk.ts reads a term's postings from the highest impact down and bounds what
 * it did not read): a *run* of a term is its postings sorted by impact, descending, cut into
 * blocks; inside a block documents are sorted by ordinal so that their deltas are small. A term
 * may have several runs (one per write batch until they are merged); top-k reads blocks in
 * descending max_impact order over all of them, and what it did not read is bounded by the
 * max_impact of the first block it did not read: a block-max bound that holds however many runs
 * there are, so runs need no global order. Ordinals (search_documents.ord) are given once per
 * written document version and never reused, so a deleted or replaced document's postings are
 * simply dead: top-k verifies every candidate on its live document row (a dead ordinal has none),
 * and merges drop them.
 *
 * Writes are log-structured: each write batch appends one level-0 run per term it holds, its blocks
 * marked with the batch's number (`gen`, from the collection's counter `search_collections.block_gen`).
 * Every MERGE_FANOUT^(L+1) batches a merge of all runs of levels ≤ L into one run per term at level
 * L+1 (re-sorted, dead postings dropped) is due. A posting is rewritten once per level, O(log n) times
 * in all, and a term has about MERGE_FANOUT − 1 runs a level. Merges run in the background
 * (merges.ts), not in the write: a merge takes only blocks of batches up to the counter it read, so
 * runs appended meanwhile are neither deleted nor judged by a liveness read before their documents
 * existed; `search_merges` records how far a collection is merged.
 */
export const BLOCK_SIZE = 128;
export const MERGE_FANOUT = 8;
/** Levels are 0..MAX_LEVEL (8^15 batches are never reached; the top level merges into itself). */
export const MAX_LEVEL = 15;
/** Postings one merge step reads into memory at most (terms are grouped up to it; a longer list alone). */
const MERGE_CHUNK_POSTINGS = 400_000;
/** Documents read at a time when postings are built from the documents. */
const BUILD_CHUNK_DOCS = 5_000;

export interface References {
  title: number;
  body: number;
}

/** Postings of one term, column by column. */
export interface Postings {
  ord: number[];
  tt: number[];
  tb: number[];
  tl: number[];
  bl: number[];
  /** Each posting's positions, ascending; null as soon as one posting's are unknown (old blocks). */
  pos: number[][] | null;
}

const emptyPostings = (): Postings => ({ ord: [], tt: [], tb: [], tl: [], bl: [], pos: [] });

/** The impact of a posting (postings.ts), in float64. */
export function impactOf(tt: number, tb: number, tl: number, bl: number, refs: References): number {
  return (W_TITLE * tt) / (1 - B + (B * tl) / refs.title) + (W_BODY * tb) / (1 - B + (B * bl) / refs.body);
}

const f32 = new Float32Array(1);
/** The smallest float4 not below x, so that a stored maximum never understates an impact. */
export function float4Up(x: number): number {
  f32[0] = x;
  let y = f32[0] as number;
  if (y >= x) return y;
  const bits = new Uint32Array(f32.buffer);
  bits[0] = (bits[0] as number) + (y >= 0 ? 1 : -1);
  y = f32[0] as number;
  return y;
}

class ByteWriter {
  bytes = new Uint8Array(256);
  length = 0;
  varint(value: number) {
    if (this.length + 8 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    let v = value;
    while (v >= 128) {
      this.bytes[this.length++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.bytes[this.length++] = v;
  }
}

/** Postings' indexes by ascending ordinal: the order inside a block. */
const byOrdinal = (p: Postings, indexes: number[]) =>
  [...indexes].sort((x, y) => (p.ord[x] as number) - (p.ord[y] as number));

/** Encodes postings (any order) as one block; the caller keeps n ≤ BLOCK_SIZE. */
export function encodeBlock(p: Postings, indexes: number[]): Uint8Array {
  const sorted = byOrdinal(p, indexes);
  const w = new ByteWriter();
  let previous = 0;
  for (const i of sorted) {
    const ord = p.ord[i] as number;
    w.varint(ord - previous);
    previous = ord;
    w.varint(p.tt[i] as number);
    w.varint(p.tb[i] as number);
    w.varint(p.tl[i] as number);
    w.varint(p.bl[i] as number);
  }
  return w.bytes.slice(0, w.length);
}

/** The positions of the same postings as encodeBlock, in its order; null when unknown. */
export function encodePositions(p: Postings, indexes: number[]): Uint8Array | null {
  if (!p.pos) return null;
  const w = new ByteWriter();
  for (const i of byOrdinal(p, indexes)) {
    const list = p.pos[i] as number[];
    w.varint(list.length);
    let previous = 0;
    for (const position of list) {
      w.varint(position - previous);
      previous = position;
    }
  }
  return w.bytes.slice(0, w.length);
}

/**
 * Reads a block's unsigned varints (7 bits a byte, low first) in order, without allocating per value; reading past
 * the end throws `search <what> truncated`. Every decoder of blocks and positions reads through one.
 */
export class VarintReader {
  private offset = 0;
  constructor(
    private readonly data: Uint8Array,
    private readonly what: string,
  ) {}

  next(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.offset >= this.data.length) throw new Error(`search ${this.what} truncated`);
      const byte = this.data[this.offset++] as number;
      result += (byte & 127) * scale;
      if (byte < 128) return result;
      scale *= 128;
    }
  }

  /** Whether every byte was read (a block longer than its count is malformed). */
  get done(): boolean {
    return this.offset === this.data.length;
  }
}

/**
 * Decodes a block's positions: posting k's positions are flat[start[k]] .. flat[start[k+1] − 1].
 * Throws on truncated or overlong data.
 */
export function decodePositions(data: Uint8Array, n: number): { start: Uint32Array; flat: Uint32Array } {
  const reader = new VarintReader(data, 'positions');
  const read = () => reader.next();
  const start = new Uint32Array(n + 1);
  // At most one position a byte: the flat array never needs more room than the data has bytes.
  const flat = new Uint32Array(data.length);
  let count = 0;
  for (let k = 0; k < n; k++) {
    start[k] = count;
    const m = read();
    let position = 0;
    for (let j = 0; j < m; j++) {
      position += read();
      flat[count++] = position;
    }
  }
  start[n] = count;
  if (!reader.done) throw new Error('search positions longer than their count');
  return { start, flat: flat.subarray(0, count) };
}

/** A decoded block: column arrays of n postings, by ascending ordinal. */
export interface DecodedBlock {
  n: number;
  ord: Float64Array;
  tt: Uint32Array;
  tb: Uint32Array;
  tl: Uint32Array;
  bl: Uint32Array;
}

/** Decodes a block of n postings; throws on truncated or overlong data rather than reading garbage. */
export function decodeBlock(data: Uint8Array, n: number): DecodedBlock {
  const out: DecodedBlock = {
    n,
    ord: new Float64Array(n),
    tt: new Uint32Array(n),
    tb: new Uint32Array(n),
    tl: new Uint32Array(n),
    bl: new Uint32Array(n),
  };
  const reader = new VarintReader(data, 'block');
  const read = () => reader.next();
  let ord = 0;
  for (let i = 0; i < n; i++) {
    ord += read();
    out.ord[i] = ord;
    out.tt[i] = read();
    out.tb[i] = read();
    out.tl[i] = read();
    out.bl[i] = read();
  }
  if (!reader.done) throw new Error('search block longer than its count');
  return out;
}

interface BlockRow {
  term: string;
  maxImpact: number;
  n: number;
  data: Uint8Array;
  pos: Uint8Array | null;
}

/** A term's postings as one run: sorted by impact (descending, then ordinal), cut into blocks. */
export function runBlocks(term: string, p: Postings, refs: References): BlockRow[] {
  const n = p.ord.length;
  const impact = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    impact[i] = impactOf(p.tt[i] as number, p.tb[i] as number, p.tl[i] as number, p.bl[i] as number, refs);
  }
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (x, y) => (impact[y] as number) - (impact[x] as number) || (p.ord[x] as number) - (p.ord[y] as number),
  );
  const blocks: BlockRow[] = [];
  for (let start = 0; start < n; start += BLOCK_SIZE) {
    const indexes = order.slice(start, start + BLOCK_SIZE);
    blocks.push({
      term,
      maxImpact: float4Up(impact[indexes[0] as number] as number),
      n: indexes.length,
      data: encodeBlock(p, indexes),
      pos: encodePositions(p, indexes),
    });
  }
  return blocks;
}

/** Bytes from a bytea column: postgres.js gives a Buffer, PGlite a Uint8Array. */
export function byteaOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string' && value.startsWith('\\x')) return Buffer.from(value.slice(2), 'hex');
  throw new Error('unexpected bytea value');
}

const INSERT_ROWS = 5_000;

async function insertBlocks(
  db: Db,
  scope: Scope,
  level: number,
  gen: number,
  blocks: BlockRow[],
): Promise<void> {
  for (let start = 0; start < blocks.length; start += INSERT_ROWS) {
    const part = blocks.slice(start, start + INSERT_ROWS);
    const terms = textArrayLiteral(part.map((b) => b.term));
    const max = `{${part.map((b) => String(b.maxImpact)).join(',')}}`;
    const counts = `{${part.map((b) => String(b.n)).join(',')}}`;
    const data = textArrayLiteral(part.map((b) => Buffer.from(b.data).toString('base64')));
    // Base64 needs no quoting; NULL for a run without positions.
    const pos = `{${part.map((b) => (b.pos ? `"${Buffer.from(b.pos).toString('base64')}"` : 'NULL')).join(',')}}`;
    await db.execute(sql`
      insert into search_blocks (account_id, collection, term, level, max_impact, n, data, pos, gen)
      select ${scope.accountId}, ${scope.collection}, x.term, ${level}::smallint, x.max_impact, x.n,
        decode(x.data, 'base64'), decode(x.pos, 'base64'), ${gen}::int
      from unnest(${terms}::text[], ${max}::real[], ${counts}::int[], ${data}::text[], ${pos}::text[])
        as x(term, max_impact, n, data, pos)`);
  }
}

/** A written document as the indexer returns it: ordinal, tf map, field lengths, lexeme positions. */
export interface IndexedDocument {
  ord: number;
  tf: Record<string, [number, number]>;
  title_len: number;
  body_len: number;
  /** Each lexeme's positions in the document's tsvector (absent: unknown, the run gets none). */
  pos?: Record<string, number[]> | null;
}

function groupByTerm(docs: IndexedDocument[]): Map<string, Postings> {
  const terms = new Map<string, Postings>();
  for (const d of docs) {
    for (const [term, [tt, tb]] of Object.entries(d.tf)) {
      let p = terms.get(term);
      if (!p) {
        p = emptyPostings();
        terms.set(term, p);
      }
      p.ord.push(d.ord);
      p.tt.push(tt);
      p.tb.push(tb);
      p.tl.push(d.title_len);
      p.bl.push(d.body_len);
      const positions = d.pos?.[term];
      if (p.pos && positions) p.pos.push(positions);
      else p.pos = null;
    }
  }
  return terms;
}

async function appendRuns(
  db: Db,
  scope: Scope,
  refs: References,
  docs: IndexedDocument[],
  gen: number,
): Promise<void> {
  const blocks: BlockRow[] = [];
  for (const [term, p] of groupByTerm(docs)) blocks.push(...runBlocks(term, p, refs));
  await insertBlocks(db, scope, 0, gen, blocks);
}

/** Which ordinals of the collection are live (have a document row). */
async function liveOrdinals(db: Db, scope: Scope): Promise<(ord: number) => boolean> {
  const rows = await queryRows<{ ord: number }>(
    db,
    sql`select ord::float8 as ord from search_documents where account_id = ${scope.accountId} and collection = ${scope.collection}`,
  );
  const live = new Set(rows.map((r) => r.ord));
  return (ord) => live.has(ord);
}

export interface MergeOptions {
  /** Runs of levels 0..maxLevel are merged … */
  maxLevel: number;
  /** … into one run per term at this level. */
  target: number;
  /** Only blocks of write batches up to this one (all of them when a rebuild holds the writers' lock). */
  upToGen: number;
  /** Postings read into memory at a time. */
  chunkPostings?: number;
  /** Called once the inputs and the live documents are read, before anything is rewritten (tests). */
  afterRead?: () => Promise<void>;
}

/**
 * Rewrites every run of levels ≤ maxLevel (blocks of batches ≤ upToGen) as one run per term at
 * level `target`, marked upToGen: impacts computed with `refs`, dead postings dropped. Terms are
 * handled in groups of at most MERGE_CHUNK_POSTINGS postings, so memory stays bounded whatever the
 * collection's size (by the longest list). One transaction (the caller's): searches see the old runs
 * or the new one.
 */
export async function mergeRuns(
  db: Db,
  scope: Scope,
  refs: References,
  options: MergeOptions,
): Promise<void> {
  const { maxLevel, target, upToGen: gen, chunkPostings = MERGE_CHUNK_POSTINGS } = options;
  const { accountId: a, collection: c } = scope;
  const perLevel = await queryRows<{ term: string; level: number; postings: number }>(
    db,
    sql`select term, level::int as level, sum(n)::int as postings from search_blocks
        where account_id = ${a} and collection = ${c} and level <= ${maxLevel} and gen <= ${gen}
        group by term, level order by term`,
  );
  if (perLevel.length === 0) return;
  const levels = `{${[...new Set(perLevel.map((r) => r.level))].join(',')}}`;
  const counts: { term: string; postings: number }[] = [];
  for (const r of perLevel) {
    const last = counts[counts.length - 1];
    if (last?.term === r.term) last.postings += r.postings;
    else counts.push({ term: r.term, postings: r.postings });
  }
  // Read after the counter: a document of a batch ≤ upToGen is live here unless deleted since (then dead).
  const isLive = await liveOrdinals(db, scope);
  await options.afterRead?.();
  let group: string[] = [];
  let groupPostings = 0;
  const flush = async () => {
    if (group.length === 0) return;
    const terms = textArrayLiteral(group);
    // Both as arrays, so that the index is probed for each (term, level) pair.
    const rows = await queryRows<{ term: string; n: number; data: unknown; pos: unknown }>(
      db,
      sql`delete from search_blocks
          where account_id = ${a} and collection = ${c} and term = any(${terms}::text[])
            and level = any(${levels}::smallint[]) and gen <= ${gen}
          returning term, n, data, pos`,
    );
    const byTerm = new Map<string, Postings>();
    for (const row of rows) {
      let p = byTerm.get(row.term);
      if (!p) {
        p = emptyPostings();
        byTerm.set(row.term, p);
      }
      const block = decodeBlock(byteaOf(row.data), row.n);
      // A block without positions makes the merged run one without (phrase.ts then falls back).
      const positions =
        row.pos === null || row.pos === undefined ? null : decodePositions(byteaOf(row.pos), row.n);
      if (!positions) p.pos = null;
      for (let i = 0; i < block.n; i++) {
        const ord = block.ord[i] as number;
        if (!isLive(ord)) continue;
        p.ord.push(ord);
        p.tt.push(block.tt[i] as number);
        p.tb.push(block.tb[i] as number);
        p.tl.push(block.tl[i] as number);
        p.bl.push(block.bl[i] as number);
        if (p.pos && positions) {
          p.pos.push(Array.from(positions.flat.subarray(positions.start[i], positions.start[i + 1])));
        }
      }
    }
    const blocks: BlockRow[] = [];
    for (const [term, p] of byTerm) if (p.ord.length > 0) blocks.push(...runBlocks(term, p, refs));
    await insertBlocks(db, scope, target, gen, blocks);
    group = [];
    groupPostings = 0;
  };
  for (const { term, postings } of counts) {
    if (groupPostings + postings > chunkPostings) await flush();
    group.push(term);
    groupPostings += postings;
  }
  await flush();
}

/** The level a batch's merge reaches: the largest L with gen divisible by FANOUT^(L+1), or −1. */
export function mergeLevel(gen: number): number {
  let level = -1;
  let step = MERGE_FANOUT;
  while (gen > 0 && gen % step === 0) {
    level++;
    step *= MERGE_FANOUT;
  }
  return level;
}

/**
 * The highest level whose merge fell due between batch `merged` (excluded) and batch `gen`: the largest L
 * for which a multiple of FANOUT^(L+1) lies in (merged, gen], or −1. Runs of levels ≤ L then merge into L+1.
 */
export function dueLevel(merged: number, gen: number): number {
  let level = -1;
  let step = MERGE_FANOUT;
  while (level < MAX_LEVEL && Math.floor(gen / step) > Math.floor(merged / step)) {
    level++;
    step *= MERGE_FANOUT;
  }
  return level;
}

/**
 * Adds the postings of just-written documents as level-0 runs, marked with the batch's number from
 * the collection's counter. Runs in the writer's transaction, with the collection row locked (the
 * counter's order is the writers' commit order). Returns whether this batch made a merge due.
 */
export async function appendPostings(
  db: Db,
  scope: Scope,
  refs: References,
  docs: IndexedDocument[],
): Promise<boolean> {
  if (docs.length === 0) return false;
  const rows = await queryRows<{ gen: number }>(
    db,
    sql`update search_collections set block_gen = block_gen + 1
        where account_id = ${scope.accountId} and name = ${scope.collection} returning block_gen::float8 as gen`,
  );
  const gen = rows[0]?.gen ?? 0;
  await appendRuns(db, scope, refs, docs, gen);
  return mergeLevel(gen) >= 0;
}

/** Highest level holding blocks (0 when none). */
async function topLevel(db: Db, scope: Scope): Promise<number> {
  const rows = await queryRows<{ level: number | null }>(
    db,
    sql`select max(level)::int as level from search_blocks
        where account_id = ${scope.accountId} and collection = ${scope.collection}`,
  );
  return rows[0]?.level ?? 0;
}

/** Every run (of batches up to `gen`, the last) re-sorted under new references (a rebase) into one run per term. */
export async function rewriteAll(db: Db, scope: Scope, refs: References, gen: number): Promise<void> {
  const level = await topLevel(db, scope);
  await mergeRuns(db, scope, refs, { maxLevel: MAX_LEVEL, target: level, upToGen: gen });
}

/**
 * Builds the collection's blocks from its documents (a new collection, a new language, data from
 * before blocks existed): documents read BUILD_CHUNK_DOCS at a time by ordinal, each chunk a run,
 * then one merge.
 */
export async function buildFromDocuments(db: Db, scope: Scope, refs: References, gen: number): Promise<void> {
  const { accountId: a, collection: c } = scope;
  await db.execute(sql`delete from search_blocks where account_id = ${a} and collection = ${c}`);
  let after = -1;
  let chunks = 0;
  for (;;) {
    const docs = await queryRows<IndexedDocument>(
      db,
      sql`select ord::float8 as ord, tf, title_len, body_len, ${positionsOf(sql`search_documents.tsv`)} as pos
          from search_documents
          where account_id = ${a} and collection = ${c} and ord > ${after}
          order by ord limit ${BUILD_CHUNK_DOCS}`,
    );
    if (docs.length === 0) break;
    await appendRuns(db, scope, refs, docs, gen);
    chunks++;
    after = docs[docs.length - 1]?.ord ?? after;
    if (docs.length < BUILD_CHUNK_DOCS) break;
  }
  if (chunks > 1) await mergeRuns(db, scope, refs, { maxLevel: 0, target: 0, upToGen: gen });
}

/** SQL: a tsvector's lexemes with their positions, as a JSON object (IndexedDocument.pos). */
export const positionsOf = (tsv: SQL) =>
  sql`(select coalesce(jsonb_object_agg(u.lexeme, u.positions), '{}'::jsonb) from unnest(${tsv}) u)`;

/**
 * Each lexeme's positions from a tsvector's text (`'lexeme':1A,5 'it''s':3`: quotes doubled,
 * backslashes escaped, a position's weight letter after it). Throws on anything else rather than
 * storing wrong positions.
 */
export function tsvectorPositions(text: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  let i = 0;
  const fail = (): never => {
    throw new Error('unexpected tsvector text');
  };
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    if (text[i] !== "'") fail();
    i++;
    let lexeme = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined) fail();
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
        lexeme += text[i + 1] ?? fail();
        i += 2;
        continue;
      }
      lexeme += ch;
      i++;
    }
    const positions: number[] = [];
    if (text[i] === ':') {
      i++;
      for (;;) {
        let value = 0;
        const start = i;
        while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) {
          value = value * 10 + text.charCodeAt(i) - 48;
          i++;
        }
        if (i === start) fail();
        positions.push(value);
        if (text[i] === 'A' || text[i] === 'B' || text[i] === 'C' || text[i] === 'D') i++;
        if (text[i] !== ',') break;
        i++;
      }
    }
    out[lexeme] = positions;
  }
  return out;
}

/** Every posting of a collection, decoded (tests and diagnostics), with the block it is in. */
export async function readAllPostings(
  db: Db,
  scope: Scope,
): Promise<
  {
    term: string;
    ord: number;
    tt: number;
    tb: number;
    tl: number;
    bl: number;
    maxImpact: number;
    pos: number[] | null;
  }[]
> {
  const rows = await queryRows<{ term: string; n: number; data: unknown; pos: unknown; max_impact: number }>(
    db,
    sql`select term, n, data, pos, max_impact::float8 as max_impact from search_blocks
        where account_id = ${scope.accountId} and collection = ${scope.collection}`,
  );
  return rows.flatMap((row) => {
    const b = decodeBlock(byteaOf(row.data), row.n);
    const positions =
      row.pos === null || row.pos === undefined ? null : decodePositions(byteaOf(row.pos), row.n);
    return Array.from({ length: b.n }, (_, i) => ({
      term: row.term,
      ord: b.ord[i] as number,
      tt: b.tt[i] as number,
      tb: b.tb[i] as number,
      tl: b.tl[i] as number,
      bl: b.bl[i] as number,
      maxImpact: row.max_impact,
      pos: positions && Array.from(positions.flat.subarray(positions.start[i], positions.start[i + 1])),
    }));
  });
}

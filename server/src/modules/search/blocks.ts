import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  type BlockRow,
  byteaOf,
  decodeBlock,
  decodePositions,
  emptyPostings,
  type Postings,
  type References,
  runBlocks,
} from './codec';
import { queryRows, type Scope, textArrayLiteral } from './sql';

/**
 * Compressed postings (table `search_blocks`), stored, merged and rebuilt; codec.ts has the bytes of
 * a block. Each block row has its highest impact (postings.ts: the field-weighted, length-normalised
 * tf with the collection's reference averages) as a column, rounded up to float4, and its postings'
 * positions in `pos`: the document tsvector's own positions (title then body, at most 256 a lexeme,
 * as Postgres keeps them), so a phrase checked on them (phrase.ts) agrees with `tsv @@ phrase`.
 * `pos` is null in blocks written before positions existed, and in a run merged from any such
 * block; phrase.ts then leaves the query to the other paths.
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
export const MERGE_FANOUT = 8;
/** Levels are 0..MAX_LEVEL (8^15 batches are never reached; the top level merges into itself). */
export const MAX_LEVEL = 15;
/** Postings one merge step reads into memory at most (terms are grouped up to it; a longer list alone). */
const MERGE_CHUNK_POSTINGS = 400_000;
/** Documents read at a time when postings are built from the documents. */
const BUILD_CHUNK_DOCS = 5_000;

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

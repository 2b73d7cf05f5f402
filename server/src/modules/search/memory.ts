import type { SearchFilter } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { decodeTsvector } from './analyse';
import { filterSql } from './filter';
import { lexemesOf, type MatchNode, matches, matchesNothing, parseTsquery } from './memory-match';
import { scorer } from './memory-score';
import type { RankedRow, RankQuery } from './query';
import type { QueryPlan } from './query-plan';
import { snippetSourceSql } from './snippet';
import { queryRows, type Scope } from './sql';

/**
 * Small collections answered from memory (docs/search.md, "Small collections"): at a few thousand
 * documents a search's SQL (the GIN match, each match's tf map read in SQL, top-k's rounds and
 * verification) costs tens of milliseconds on PGlite for what a scan of the collection in
 * TypeScript does in one or two. A collection of at most `maxDocuments` is loaded once, in the
 * search's own snapshot, as each document's lexeme positions, frequencies and field lengths,
 * postings per lexeme, title, metadata and snippet source, in id order; a search then matches
 * (memory-match.ts), scores (memory-score.ts, the SQL's expression and rounding) and pages in
 * TypeScript: the same page as the SQL path (test/search/memory.test.ts compares them).
 *
 * Exactness: the index is tagged with the collection's version as the plan statement read it in the
 * search's snapshot (`QueryPlan.version`: the collection row's creation time, next ordinal, document
 * count and language; every write changes one of them, see plan.ts), and answers only a search whose
 * plan read the same version, so a write is seen by the next search on any instance. A version is
 * loaded on its second search (the first takes the SQL path), so a collection written between
 * every search never pays a load per search. Memory is bounded: the indexes of all tenants share
 * `maxBytes` (estimated), least recently used dropped first; the key is account and collection.
 * The metadata filter is decided by its SQL (filter.ts) over the collection, once per version and
 * filter, so its semantics (jsonb equality, numeric and date ranges) are the SQL's own.
 */
export interface MemoryLimits {
  /** Collections of at most this many documents are answered from memory. */
  maxDocuments: number;
  /** All the indexes together, estimated bytes. */
  maxBytes: number;
}

export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxDocuments: 10_000, maxBytes: 128 * 1024 * 1024 };

interface MemoryDoc {
  id: string;
  title: string;
  metadata: Record<string, unknown>;
  text: string;
  tf: Map<string, [number, number]>;
  pos: Map<string, number[]>;
  titleLen: number;
  bodyLen: number;
}

interface CollectionIndex {
  version: string;
  /** In id order (the database's collation: loaded `order by id`), so a document's index is its rank. */
  docs: MemoryDoc[];
  byId: Map<string, number>;
  /** Lexeme → indexes of the documents holding it, ascending. */
  postings: Map<string, number[]>;
  /** Filter (JSON) → which documents pass it (its SQL, run once per version). */
  filters: Map<string, Uint8Array>;
  bytes: number;
}

const MAX_FILTERS = 16;

export class MemoryIndexes {
  private readonly indexes = new Map<string, CollectionIndex>();
  /** The version each collection's last search read, to load a version on its second search. */
  private readonly seen = new Map<string, string>();
  private bytes = 0;

  constructor(
    readonly limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
    /** Load on the first search of a version (tests), not the second. */
    private readonly eager = false,
  ) {}

  /** Estimated bytes held (for tests and metrics). */
  get size(): number {
    return this.bytes;
  }

  /** The keys of the collections held, least recently used first (tests). */
  keys(): string[] {
    return [...this.indexes.keys()];
  }

  /**
   * The page of `rq` from memory, or undefined when this search takes the SQL path (collection too
   * large or not loaded yet, a query or cursor the memory path does not answer exactly).
   */
  async rank(
    db: Db,
    rq: RankQuery & { plan: QueryPlan & { tsquery: string } },
  ): Promise<RankedRow[] | undefined> {
    const { plan } = rq;
    if (plan.version === undefined || plan.n > this.limits.maxDocuments) return undefined;
    const node = parseTsquery(plan.tsquery);
    if (!node) return undefined;
    const key = JSON.stringify([rq.scope.accountId, rq.scope.collection]);
    let index = this.indexes.get(key);
    if (index && index.version !== plan.version) {
      this.drop(key);
      index = undefined;
    }
    if (!index) {
      if (!this.eager && this.seen.get(key) !== plan.version) {
        this.seen.delete(key);
        this.seen.set(key, plan.version);
        while (this.seen.size > 10_000) this.seen.delete(this.seen.keys().next().value as string);
        return undefined;
      }
      index = await loadIndex(db, rq.scope, plan.version);
      if (index.docs.length > this.limits.maxDocuments || index.bytes > this.limits.maxBytes)
        return undefined;
      this.indexes.set(key, index);
      this.bytes += index.bytes;
      for (const oldest of this.indexes.keys()) {
        if (this.bytes <= this.limits.maxBytes || oldest === key) break;
        this.drop(oldest);
      }
    } else {
      // Most recently used last.
      this.indexes.delete(key);
      this.indexes.set(key, index);
    }
    const passes = rq.filter ? await filterPasses(db, rq.scope, index, rq.filter) : undefined;
    return rankInMemory(index, node, rq, passes);
  }

  private drop(key: string) {
    const index = this.indexes.get(key);
    if (!index) return;
    this.indexes.delete(key);
    this.bytes -= index.bytes;
  }
}

async function loadIndex(db: Db, scope: Scope, version: string): Promise<CollectionIndex> {
  const { accountId: a, collection: c } = scope;
  const rows = await queryRows<{
    id: string;
    title: string;
    metadata: Record<string, unknown>;
    text: string;
    tf: Record<string, [number, number]>;
    title_len: number;
    body_len: number;
    tsv: string;
  }>(
    db,
    sql`select d.id, d.title, d.metadata, ${snippetSourceSql()} as text, d.tf, d.title_len, d.body_len,
      encode(tsvectorsend(d.tsv), 'base64') as tsv
    from search_documents d where d.account_id = ${a} and d.collection = ${c}
    order by d.id`,
  );
  const docs: MemoryDoc[] = [];
  const byId = new Map<string, number>();
  const postings = new Map<string, number[]>();
  let bytes = 0;
  for (const row of rows) {
    const analysed = decodeTsvector(Buffer.from(row.tsv, 'base64'));
    const i = docs.length;
    const pos = new Map<string, number[]>();
    for (const [lexeme, list] of Object.entries(analysed.pos)) {
      pos.set(lexeme, list);
      let holders = postings.get(lexeme);
      if (!holders) {
        holders = [];
        postings.set(lexeme, holders);
        bytes += 80 + 2 * lexeme.length;
      }
      holders.push(i);
      bytes += 64 + 2 * lexeme.length + 8 * list.length;
    }
    docs.push({
      id: row.id,
      title: row.title,
      metadata: row.metadata,
      text: row.text,
      tf: new Map(Object.entries(row.tf)),
      pos,
      titleLen: row.title_len,
      bodyLen: row.body_len,
    });
    byId.set(row.id, i);
    bytes +=
      200 +
      2 * (row.id.length + row.title.length + row.text.length) +
      JSON.stringify(row.metadata).length * 2;
  }
  return { version, docs, byId, postings, filters: new Map(), bytes };
}

/** Which documents pass the filter: its SQL over the collection, once per version and filter. */
async function filterPasses(
  db: Db,
  scope: Scope,
  index: CollectionIndex,
  filter: SearchFilter,
): Promise<Uint8Array> {
  const key = JSON.stringify(filter);
  const known = index.filters.get(key);
  if (known) return known;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select d.id from search_documents d
      where d.account_id = ${scope.accountId} and d.collection = ${scope.collection} and ${filterSql(filter)}`,
  );
  const passes = new Uint8Array(index.docs.length);
  for (const row of rows) {
    const i = index.byId.get(row.id);
    if (i !== undefined) passes[i] = 1;
  }
  if (index.filters.size >= MAX_FILTERS) index.filters.delete(index.filters.keys().next().value as string);
  index.filters.set(key, passes);
  return passes;
}

/**
 * rankDocuments (query.ts) over the index: the matches (filtered), scored, after the keyset, ordered
 * by (score desc, id), offset, limit + 1. Undefined when the cursor names a document the index does
 * not hold (its place in the collation's order is then the database's to say).
 */
function rankInMemory(
  index: CollectionIndex,
  node: MatchNode,
  rq: RankQuery,
  passes: Uint8Array | undefined,
): RankedRow[] | undefined {
  const { after } = rq;
  let afterRank = -1;
  if (after?.score !== undefined) {
    const found = index.byId.get(after.id);
    if (found === undefined) return undefined;
    afterRank = found;
  }
  // Candidates: every document when a document without the query's lexemes can match (`!a`),
  // else those holding one of them.
  let candidates: Iterable<number>;
  if (matchesNothing(node)) candidates = index.docs.keys();
  else {
    const set = new Set<number>();
    for (const lexeme of lexemesOf(node)) for (const i of index.postings.get(lexeme) ?? []) set.add(i);
    candidates = set;
  }
  const score = scorer(rq.plan);
  const hits: { i: number; score: number }[] = [];
  for (const i of candidates) {
    if (passes && passes[i] !== 1) continue;
    const doc = index.docs[i] as MemoryDoc;
    if (!matches(node, doc.pos)) continue;
    const s = score(doc.tf, doc.titleLen, doc.bodyLen);
    if (after?.score !== undefined && !(s < after.score || (s === after.score && i > afterRank))) continue;
    hits.push({ i, score: s });
  }
  hits.sort((x, y) => y.score - x.score || x.i - y.i);
  return hits.slice(rq.offset, rq.offset + rq.limit + 1).map(({ i, score: s }) => {
    const doc = index.docs[i] as MemoryDoc;
    return { id: doc.id, score: s, title: doc.title, metadata: doc.metadata, text: doc.text };
  });
}

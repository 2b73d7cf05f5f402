import type { SearchFilter } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { decodeTsvector } from './analyse';
import { analyseFromCache, missingAnalysisSql, rememberAnalysis } from './analysis';
import { collectionVersionSql } from './collections';
import { filterSql } from './filter';
import { type MatchNode, parseTsquery, phraseMatches } from './memory-match';
import { fieldNorm, roundScore, termShare, termWeights } from './memory-score';
import { buildKeywordPlan, type CollectionRow } from './plan';
import type { RankedRow, RankQuery } from './query';
import type { Operator, QueryPlan } from './query-plan';
import { snippetSourceSql, type WordBounds, wordBounds } from './snippet';
import { queryRows, type Scope } from './sql';
import type { ParsedQuery } from './syntax';

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

/** A lexeme's documents (indexes, ascending) with its title and body frequency in each. */
interface Postings {
  docs: Int32Array;
  title: Int32Array;
  body: Int32Array;
}

interface CollectionIndex {
  version: string;
  /** The collection's text search configuration (part of the version). */
  language: string;
  /** Lexeme → document frequency, from search_terms in the snapshot the documents were read in. */
  dfs: Map<string, number>;
  /** Documents in id order (the database's collation: loaded `order by id`), so an index is a rank. */
  ids: string[];
  titles: string[];
  metadata: Record<string, unknown>[];
  /** Each document's snippet source (snippetSourceSql). */
  texts: string[];
  /**
   * Each document's tsvector (tsvectorsend, base64), decoded into lexeme → positions the first time a
   * phrase needs it: most queries never read positions, and decoding every document made most of a load.
   */
  positions: (string | Map<string, number[]>)[];
  /** Each document's snippet source's words, found the first time it is on a page (snippet.ts). */
  words: (WordBounds | undefined)[];
  titleLen: Int32Array;
  bodyLen: Int32Array;
  byId: Map<string, number>;
  /**
   * Lexeme → the documents holding it, with its frequencies in each: what matching and scoring read.
   * From the tf map, whose keys are the tsvector's lexemes (analyse.ts builds it from the tsvector).
   */
  postings: Map<string, Postings>;
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
  /** Loads under way, by collection and version. */
  private readonly loading = new Map<string, Promise<CollectionIndex>>();

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
      // Searches arriving together share one load of a version (the same documents in any snapshot of it).
      const loadKey = JSON.stringify([key, plan.version]);
      const pending = this.loading.get(loadKey);
      let loading = pending;
      if (!loading) {
        loading = loadIndex(db, rq.scope, plan.version);
        this.loading.set(loadKey, loading);
        const done = () => this.loading.delete(loadKey);
        loading.then(done, done);
      }
      try {
        index = await loading;
      } catch (err) {
        // Its own load failing fails the search as any statement would; another search's, the SQL path.
        if (!pending) throw err;
        return undefined;
      }
      if (this.indexes.get(key) === index) return this.answer(db, index, node, rq);
      if (index.ids.length > this.limits.maxDocuments || index.bytes > this.limits.maxBytes) return undefined;
      // Another search may have loaded it meanwhile: the last load replaces it, counted once.
      this.drop(key);
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
    return this.answer(db, index, node, rq);
  }

  /**
   * A keyword search answered with one statement and no transaction when the collection's index is
   * loaded: the statement reads the collection's row (its version, statistics and references), and
   * analyses the query's words the caches do not know (analysis.ts); when the version is the index's,
   * the plan is built from that analysis and the index's document frequencies, exactly as the plan
   * statement would have built it, and the page comes from the index. Undefined when the search must
   * take the usual path (no index or another version, a filter not yet evaluated for this version, a
   * query form or cursor the index does not answer).
   */
  async rankDirect(
    db: Db,
    rq: Omit<RankQuery, 'plan'> & { parsed: ParsedQuery; operator: Operator; maxTerms: number },
  ): Promise<{ rows: RankedRow[]; plan: QueryPlan } | undefined> {
    const key = JSON.stringify([rq.scope.accountId, rq.scope.collection]);
    const index = this.indexes.get(key);
    if (!index) return undefined;
    if (rq.filter && !index.filters.has(JSON.stringify(rq.filter))) return undefined;
    let analysed = analyseFromCache(index.language, rq.parsed);
    const missing = 'missing' in analysed ? analysed.missing : undefined;
    const rows = await queryRows<
      CollectionRow & {
        words: Record<string, string[]> | null;
        pieces: Record<string, [string, number][]> | null;
        units: Record<string, { q: string; lexemes: string[] }> | null;
      }
    >(
      db,
      sql`select c.language, c.doc_count::float8 as n, c.title_len_sum::float8 as tl,
          c.body_len_sum::float8 as bl, c.impact_title_avg as rt, c.impact_body_avg as rb,
          ${collectionVersionSql('c')} as version
          ${missing ? sql`, ${missingAnalysisSql(sql`c.language::regconfig`, missing)}` : sql``}
        from search_collections c where c.account_id = ${rq.scope.accountId} and c.name = ${rq.scope.collection}`,
    );
    const row = rows[0];
    if (!row || row.version !== index.version || row.n > this.limits.maxDocuments) return undefined;
    if (missing) {
      rememberAnalysis(row.language, row);
      analysed = analyseFromCache(index.language, rq.parsed);
    }
    if (!('analysis' in analysed)) return undefined;
    const plan = buildKeywordPlan(
      rq.parsed,
      rq.operator,
      rq.maxTerms,
      row,
      analysed.analysis,
      (t) => index.dfs.get(t) ?? 0,
    );
    const { tsquery } = plan;
    if (tsquery === null) return { rows: [], plan };
    const node = parseTsquery(tsquery);
    if (!node) return undefined;
    const passes = rq.filter ? index.filters.get(JSON.stringify(rq.filter)) : undefined;
    const page = rankInMemory(index, node, { ...rq, plan: { ...plan, tsquery } }, passes);
    if (!page) return undefined;
    // Most recently used last.
    this.indexes.delete(key);
    this.indexes.set(key, index);
    return { rows: page, plan };
  }

  private async answer(db: Db, index: CollectionIndex, node: MatchNode, rq: RankQuery) {
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
  const terms = await queryRows<{ term: string; df: number }>(
    db,
    sql`select term, df from search_terms where account_id = ${a} and collection = ${c}`,
  );
  const n = rows.length;
  const index: CollectionIndex = {
    version,
    // The version ends with the language (collectionVersionSql), which no language name contains.
    language: version.slice(version.lastIndexOf('/') + 1),
    dfs: new Map(terms.map((t) => [t.term, Number(t.df)])),
    ids: new Array(n),
    titles: new Array(n),
    metadata: new Array(n),
    texts: new Array(n),
    positions: new Array(n),
    words: new Array(n),
    titleLen: new Int32Array(n),
    bodyLen: new Int32Array(n),
    byId: new Map(),
    postings: new Map(),
    filters: new Map(),
    bytes: 0,
  };
  const postings = new Map<string, number[]>();
  let bytes = 0;
  rows.forEach((row, i) => {
    for (const [lexeme, f] of Object.entries(row.tf)) {
      let list = postings.get(lexeme);
      if (!list) {
        list = [];
        postings.set(lexeme, list);
      }
      list.push(i, f[0], f[1]);
      bytes += 24;
    }
    index.ids[i] = row.id;
    index.titles[i] = row.title;
    index.metadata[i] = row.metadata;
    index.texts[i] = row.text;
    index.positions[i] = row.tsv;
    index.titleLen[i] = row.title_len;
    index.bodyLen[i] = row.body_len;
    index.byId.set(row.id, i);
    bytes +=
      200 +
      2 * (row.id.length + row.title.length + row.text.length) +
      2 * JSON.stringify(row.metadata).length +
      // The tsvector's text, and room for its positions once decoded; the snippet source's words.
      6 * row.tsv.length +
      2 * row.text.length;
  });
  for (const [lexeme, flat] of postings) {
    const k = flat.length / 3;
    const p: Postings = { docs: new Int32Array(k), title: new Int32Array(k), body: new Int32Array(k) };
    for (let j = 0; j < k; j++) {
      p.docs[j] = flat[3 * j] as number;
      p.title[j] = flat[3 * j + 1] as number;
      p.body[j] = flat[3 * j + 2] as number;
    }
    index.postings.set(lexeme, p);
    bytes += 96 + 2 * lexeme.length + 12 * k;
  }
  for (const t of terms) bytes += 64 + 2 * t.term.length;
  index.bytes = bytes;
  return index;
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
  const passes = new Uint8Array(index.ids.length);
  for (const row of rows) {
    const i = index.byId.get(row.id);
    if (i !== undefined) passes[i] = 1;
  }
  if (index.filters.size >= MAX_FILTERS) index.filters.delete(index.filters.keys().next().value as string);
  index.filters.set(key, passes);
  return passes;
}

/** A document's positions, decoded from its tsvector the first time they are read. */
function positionsOf(index: CollectionIndex, i: number): Map<string, number[]> {
  const held = index.positions[i] as string | Map<string, number[]>;
  if (typeof held !== 'string') return held;
  const decoded = new Map(Object.entries(decodeTsvector(Buffer.from(held, 'base64')).pos));
  index.positions[i] = decoded;
  return decoded;
}

/**
 * `tsv @@ query` for every document at once, as a bitmap: a lexeme's documents from its postings,
 * `&`, `|` and `!` combined document by document, a phrase checked on the positions of the documents
 * holding all its lexemes.
 */
function matching(index: CollectionIndex, node: MatchNode): Uint8Array {
  const n = index.ids.length;
  const out = new Uint8Array(n);
  switch (node.kind) {
    case 'lex': {
      for (const i of index.postings.get(node.term)?.docs ?? []) out[i] = 1;
      return out;
    }
    case 'not': {
      const arg = matching(index, node.arg);
      for (let i = 0; i < n; i++) out[i] = 1 - (arg[i] as number);
      return out;
    }
    case 'and':
    case 'or': {
      const left = matching(index, node.left);
      const right = matching(index, node.right);
      for (let i = 0; i < n; i++)
        out[i] =
          node.kind === 'and'
            ? (left[i] as number) & (right[i] as number)
            : (left[i] as number) | (right[i] as number);
      return out;
    }
    case 'phrase': {
      const holding = new Uint8Array(n);
      node.chain.forEach((c, k) => {
        for (const i of index.postings.get(c.term)?.docs ?? []) if (holding[i] === k) holding[i] = k + 1;
      });
      for (let i = 0; i < n; i++)
        if (holding[i] === node.chain.length && phraseMatches(node.chain, positionsOf(index, i))) out[i] = 1;
      return out;
    }
  }
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
  const { after, plan } = rq;
  const n = index.ids.length;
  let afterRank = -1;
  if (after?.score !== undefined) {
    const found = index.byId.get(after.id);
    if (found === undefined) return undefined;
    afterRank = found;
  }
  const matched = matching(index, node);
  // Scores term at a time in the plan's order, which is the SQL's order of summation.
  const sums = new Float64Array(n);
  const weights = termWeights(plan);
  const tn = new Float64Array(n);
  const bn = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    tn[i] = fieldNorm(index.titleLen[i] as number, plan.avgTitle);
    bn[i] = fieldNorm(index.bodyLen[i] as number, plan.avgBody);
  }
  plan.terms.forEach((t, k) => {
    const p = index.postings.get(t.term);
    if (!p) return;
    const w = weights[k] as number;
    for (let j = 0; j < p.docs.length; j++) {
      const i = p.docs[j] as number;
      sums[i] =
        (sums[i] as number) +
        termShare(w, p.title[j] as number, p.body[j] as number, tn[i] as number, bn[i] as number);
    }
  });
  const hits: number[] = [];
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (matched[i] !== 1 || (passes && passes[i] !== 1)) continue;
    const s = roundScore(sums[i] as number);
    if (after?.score !== undefined && !(s < after.score || (s === after.score && i > afterRank))) continue;
    scores[i] = s;
    hits.push(i);
  }
  hits.sort((x, y) => (scores[y] as number) - (scores[x] as number) || x - y);
  return hits.slice(rq.offset, rq.offset + rq.limit + 1).map((i) => ({
    id: index.ids[i] as string,
    score: scores[i] as number,
    title: index.titles[i] as string,
    metadata: index.metadata[i] as Record<string, unknown>,
    text: index.texts[i] as string,
    words: wordsOf(index, i),
  }));
}

/** A document's snippet source's words, found the first time it is on a page. */
function wordsOf(index: CollectionIndex, i: number): WordBounds {
  const known = index.words[i];
  if (known) return known;
  const found = wordBounds(index.texts[i] as string);
  index.words[i] = found;
  return found;
}

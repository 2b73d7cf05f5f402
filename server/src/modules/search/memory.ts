import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { analyseFromCache, missingAnalysisSql, rememberAnalysis } from './analysis';
import { collectionVersionSql } from './collections';
import { type CollectionIndex, filterPasses, loadIndex } from './memory-index';
import { type MatchNode, parseTsquery } from './memory-match';
import { rankInMemory } from './memory-rank';
import { buildKeywordPlan, type CollectionRow } from './plan';
import type { RankedRow, RankQuery } from './query';
import type { Operator, QueryPlan } from './query-plan';
import { queryRows } from './sql';
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

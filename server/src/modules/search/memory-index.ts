import type { SearchFilter } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { filterSql } from './filter';
import { snippetSourceSql, type WordBounds } from './snippet';
import { queryRows, type Scope } from './sql';

/**
 * A small collection's index in memory (memory.ts): what it holds and how it is loaded, in the search's
 * snapshot, from the collection's documents and vocabulary; and which of its documents pass a filter.
 */

/** A lexeme's documents (indexes, ascending) with its title and body frequency in each. */
export interface Postings {
  docs: Int32Array;
  title: Int32Array;
  body: Int32Array;
}

export interface CollectionIndex {
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

export const MAX_FILTERS = 16;

export async function loadIndex(db: Db, scope: Scope, version: string): Promise<CollectionIndex> {
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
export async function filterPasses(
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

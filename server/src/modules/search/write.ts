import type { IndexResult } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import type { Db } from '../../db/client';
import { analysedRows, decodeTsvector } from './analyse';
import { appendPostings, type IndexedDocument } from './blocks';
import { lockCollection } from './collections';
import type { SearchMaintenance } from './maintenance';
import { liveAverages, needsRebase, readReferences, rebuildPostings } from './postings';
import { queryRows, type Scope } from './sql';
import type { CleanDocument } from './validate';

/**
 * Removes documents by id and takes them out of the statistics: document frequencies, count and
 * summed lengths. Returns the ids that existed. Their postings stay in the blocks, dead: their
 * ordinals have no document row any more, which top-k checks on every candidate, and merges drop
 * them (blocks.ts).
 */
export async function removeDocuments(db: Db, scope: Scope, ids: string[]): Promise<string[]> {
  const { accountId: a, collection: c } = scope;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`
    with old as (
      delete from search_documents
      where account_id = ${a} and collection = ${c}
        and id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      returning id, tf, title_len, body_len
    ),
    dec as (
      update search_terms t set df = t.df - d.n
      from (select k, count(*)::int as n from old, jsonb_object_keys(old.tf) k group by k) d
      where t.account_id = ${a} and t.collection = ${c} and t.term = d.k
      returning 1
    ),
    stats as (
      update search_collections set
        doc_count = doc_count - (select count(*) from old),
        title_len_sum = title_len_sum - (select coalesce(sum(title_len), 0) from old),
        body_len_sum = body_len_sum - (select coalesce(sum(body_len), 0) from old),
        updated_at = now()
      where account_id = ${a} and name = ${c}
      returning 1
    )
    select id from old`,
  );
  if (rows.length > 0) {
    // A term no document uses any more must not be offered by fuzzy expansion.
    await db.execute(sql`delete from search_terms where account_id = ${a} and collection = ${c} and df <= 0`);
  }
  return rows.map((r) => r.id);
}

/**
 * Inserts documents, each with a new ordinal, and their share of the statistics; returns the
 * collection's new statistics and the written documents' ordinals, frequencies and lengths (for
 * their postings).
 */
async function insertDocuments(
  db: Db,
  scope: Scope,
  language: string,
  docs: CleanDocument[],
): Promise<{ n: number; tl: number; bl: number; docs: IndexedDocument[] }> {
  const { accountId: a, collection: c } = scope;
  const source = sql`
    select x.id, coalesce(x.title, '') as title, x.body, coalesce(x.metadata, '{}'::jsonb) as metadata
    from jsonb_to_recordset(${JSON.stringify(docs)}::jsonb) as x(id text, title text, body text, metadata jsonb)`;
  const rows = await queryRows<{
    n: number;
    tl: number;
    bl: number;
    docs: { ord: number; tsv: string }[] | null;
  }>(
    db,
    sql`
    with base as (
      select next_ord from search_collections where account_id = ${a} and name = ${c}
    ),
    ins as (
      insert into search_documents (account_id, collection, id, ord, title, body, metadata, tsv, tf, title_len, body_len)
      select ${a}, ${c}, r.id, (select next_ord from base) + row_number() over (), r.title, r.body, r.metadata,
        r.tsv, r.tf, r.title_len, r.body_len
      from (${analysedRows(source, language)}) r
      returning ord, tf, title_len, body_len, tsv
    ),
    terms as (
      insert into search_terms (account_id, collection, term, df)
      select ${a}, ${c}, k, count(*)::int from ins, jsonb_object_keys(ins.tf) k group by k order by k
      on conflict (account_id, collection, term) do update set df = search_terms.df + excluded.df
      returning 1
    )
    update search_collections set
      doc_count = doc_count + (select count(*) from ins),
      title_len_sum = title_len_sum + (select coalesce(sum(title_len), 0) from ins),
      body_len_sum = body_len_sum + (select coalesce(sum(body_len), 0) from ins),
      next_ord = next_ord + (select count(*) from ins),
      updated_at = now()
    where account_id = ${a} and name = ${c}
    returning doc_count::float8 as n, title_len_sum::float8 as tl, body_len_sum::float8 as bl,
      (select jsonb_agg(jsonb_build_object('ord', ord, 'tsv', encode(tsvectorsend(ins.tsv), 'base64'))) from ins) as docs`,
  );
  const row = rows[0];
  if (!row) throw new Error('collection statistics update returned no row');
  // Frequencies, lengths and positions from the tsvector's binary form, decoded here: printing it as
  // text in SQL and parsing that, or building JSON of it in SQL, cost more than the analysis.
  const written = (row.docs ?? []).map((d): IndexedDocument => {
    const terms = decodeTsvector(Buffer.from(d.tsv, 'base64'));
    return { ord: d.ord, tf: terms.tf, title_len: terms.titleLen, body_len: terms.bodyLen, pos: terms.pos };
  });
  return { n: row.n, tl: row.tl, bl: row.bl, docs: written };
}

/**
 * Adds or replaces documents in one transaction: all of them are searchable when this returns,
 * or none is written. A merge of blocks the write made due is left to `merges`, after the commit
 * (without it, to a maintenance sweep).
 */
export async function indexDocuments({
  ctx,
  scope,
  documents,
  merges,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
  documents: CleanDocument[];
  merges?: Pick<SearchMaintenance, 'wake' | 'wrote'>;
}): Promise<IndexResult> {
  let mergeDue = false;
  const replaced = await ctx.db.transaction(async (tx) => {
    const language = await lockCollection(tx, scope);
    const existing = await removeDocuments(
      tx,
      scope,
      documents.map((d) => d.id),
    );
    const refs = await readReferences(tx, scope);
    const stats = await insertDocuments(tx, scope, language, documents);
    if (refs) mergeDue = await appendPostings(tx, scope, refs, stats.docs);
    // A new collection gets its postings here (from its documents), an old one is rebuilt (from its
    // blocks) when its averages have drifted.
    if (needsRebase(refs, liveAverages(stats.n, stats.tl, stats.bl))) {
      await rebuildPostings(tx, scope, refs ? 'blocks' : 'documents');
    }
    return new Set(existing);
  });
  if (mergeDue) merges?.wake(scope);
  merges?.wrote(documents.length);
  return {
    object: 'list',
    collection: scope.collection,
    data: documents.map((d) => ({ object: 'document', id: d.id, replaced: replaced.has(d.id) })),
  };
}

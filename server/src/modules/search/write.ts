import type { IndexResult } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import type { Db } from '../../db/client';
import { analyseDocuments, decodeTsvectorWithLiteral } from './analyse';
import { appendPostings, type IndexedDocument } from './blocks';
import { lockCollection } from './collections';
import type { SearchMaintenance } from './maintenance';
import { liveAverages, needsRebase, readReferences, rebuildPostings } from './postings';
import { queryRows, type Scope, textArrayLiteral } from './sql';
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
 * their postings). The batch's terms: an update of the known ones' df, an insert of the new ones (an
 * upsert's speculative insertion of every term cost ~1.6× as much; writers to a collection are
 * serialised by its row lock, so no other writer adds a term meanwhile). Two statements: the analysis (`analyseDocuments`), whose tsvectors are read here
 * (frequencies, lengths, positions, the batch's document frequencies), then the insert, given the
 * tsvector as text and everything derived from it.
 */
async function insertDocuments(
  db: Db,
  scope: Scope,
  language: string,
  docs: CleanDocument[],
): Promise<{ n: number; tl: number; bl: number; docs: IndexedDocument[] }> {
  const { accountId: a, collection: c } = scope;
  const analysed = await analyseDocuments(db, language, docs);
  const df = new Map<string, number>();
  let titleLen = 0;
  let bodyLen = 0;
  const rows = docs.map((d, i) => {
    const bytes = analysed[i];
    if (!bytes) throw new Error('analysis returned fewer rows than documents');
    const terms = decodeTsvectorWithLiteral(bytes);
    for (const term of Object.keys(terms.tf)) df.set(term, (df.get(term) ?? 0) + 1);
    titleLen += terms.titleLen;
    bodyLen += terms.bodyLen;
    return { doc: d, terms };
  });
  const vocabulary = [...df.keys()].sort();
  const source = rows.map((r, i) => ({
    i: i + 1,
    id: r.doc.id,
    title: r.doc.title,
    body: r.doc.body,
    metadata: r.doc.metadata,
    tsv: r.terms.literal,
    tf: r.terms.tf,
    tl: r.terms.titleLen,
    bl: r.terms.bodyLen,
  }));
  const stats = await queryRows<{ n: number; tl: number; bl: number; next: number }>(
    db,
    sql`
    with base as (
      select next_ord from search_collections where account_id = ${a} and name = ${c}
    ),
    ins as (
      insert into search_documents (account_id, collection, id, ord, title, body, metadata, tsv, tf, title_len, body_len)
      select ${a}, ${c}, x.id, (select next_ord from base) + x.i, coalesce(x.title, ''), x.body,
        coalesce(x.metadata, '{}'::jsonb), x.tsv::tsvector, x.tf, x.tl, x.bl
      from jsonb_to_recordset(${JSON.stringify(source)}::jsonb)
        as x(i int, id text, title text, body text, metadata jsonb, tsv text, tf jsonb, tl int, bl int)
      returning 1
    ),
    batch as (
      select t.term, t.df
      from unnest(${textArrayLiteral(vocabulary)}::text[], ${`{${vocabulary.map((t) => df.get(t)).join(',')}}`}::int[])
        as t(term, df)
    ),
    known as (
      update search_terms st set df = st.df + b.df
      from batch b
      where st.account_id = ${a} and st.collection = ${c} and st.term = b.term
      returning st.term
    ),
    fresh as (
      insert into search_terms (account_id, collection, term, df)
      select ${a}, ${c}, b.term, b.df from batch b
      where not exists (select 1 from known k where k.term = b.term)
      order by b.term
      returning 1
    )
    update search_collections set
      doc_count = doc_count + ${docs.length},
      title_len_sum = title_len_sum + ${titleLen},
      body_len_sum = body_len_sum + ${bodyLen},
      next_ord = next_ord + ${docs.length},
      updated_at = now()
    where account_id = ${a} and name = ${c}
    returning doc_count::float8 as n, title_len_sum::float8 as tl, body_len_sum::float8 as bl,
      next_ord::float8 as next`,
  );
  const row = stats[0];
  if (!row) throw new Error('collection statistics update returned no row');
  const first = row.next - docs.length;
  const written = rows.map(
    ({ terms }, i): IndexedDocument => ({
      ord: first + i + 1,
      tf: terms.tf,
      title_len: terms.titleLen,
      body_len: terms.bodyLen,
      pos: terms.pos,
    }),
  );
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
  let entries = 0;
  const replaced = await ctx.db.transaction(async (tx) => {
    const language = await lockCollection(tx, scope);
    const existing = await removeDocuments(
      tx,
      scope,
      documents.map((d) => d.id),
    );
    const refs = await readReferences(tx, scope);
    const stats = await insertDocuments(tx, scope, language, documents);
    for (const d of stats.docs) entries += Object.keys(d.tf).length;
    if (refs) mergeDue = await appendPostings(tx, scope, refs, stats.docs);
    // A new collection gets its postings here (from its documents), an old one is rebuilt (from its
    // blocks) when its averages have drifted.
    if (needsRebase(refs, liveAverages(stats.n, stats.tl, stats.bl))) {
      await rebuildPostings(tx, scope, refs ? 'blocks' : 'documents');
    }
    return new Set(existing);
  });
  if (mergeDue) merges?.wake(scope);
  merges?.wrote(documents.length, entries);
  return {
    object: 'list',
    collection: scope.collection,
    data: documents.map((d) => ({ object: 'document', id: d.id, replaced: replaced.has(d.id) })),
  };
}

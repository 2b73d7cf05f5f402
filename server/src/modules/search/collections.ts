import type { CollectionObject, SearchLanguage } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import type { Db } from '../../db/client';
import { ServiceError } from '../../errors';
import { analysedRows } from './analyse';
import { lockMerges } from './merge-state';
import { rebuildPostings } from './postings';
import { queryRows, type Scope } from './sql';

export interface CollectionStats {
  language: SearchLanguage;
  docCount: number;
  titleLenSum: number;
  bodyLenSum: number;
  /** See collectionVersionSql. */
  version?: string;
}

/**
 * A collection's version, as text, from its row (alias `t`): the row's creation time (a collection
 * deleted and made again is another), its next ordinal (every document written takes a new one; it
 * never goes down), its document count (every deletion lowers it, and only a write raises it, which
 * takes an ordinal) and its language (re-analysing every document). So every write, in whatever
 * order, changes it, in the writing transaction; merges and rebuilds of postings, which change no
 * document, do not. memory.ts answers a search only from an index of the version its snapshot reads.
 */
export const collectionVersionSql = (t: string) => {
  const c = sql.raw(t);
  return sql`(extract(epoch from ${c}.created_at)::text || '/' || ${c}.next_ord || '/' || ${c}.doc_count || '/' || ${c}.language)`;
};

/**
 * Creates the collection if needed and locks its row for the rest of the transaction, so that
 * writes to one collection are serialised (statistics stay exact, the terms' df updates cannot deadlock).
 */
export async function lockCollection(
  db: Db,
  scope: Scope,
  language?: SearchLanguage,
): Promise<SearchLanguage> {
  const rows = await queryRows<{ language: SearchLanguage }>(
    db,
    sql`insert into search_collections (account_id, name, language)
        values (${scope.accountId}, ${scope.collection}, ${language ?? 'english'})
        on conflict (account_id, name) do update set updated_at = now()
        returning language`,
  );
  const row = rows[0];
  if (!row) throw new Error('collection upsert returned no row');
  return row.language;
}

/** Locks an existing collection's row; false when there is none (nothing to change). */
export async function lockExistingCollection(db: Db, scope: Scope): Promise<boolean> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select name from search_collections where account_id = ${scope.accountId} and name = ${scope.collection}
        for update`,
  );
  return rows.length > 0;
}

export async function readCollection(db: Db, scope: Scope): Promise<CollectionStats | undefined> {
  const rows = await queryRows<CollectionStats>(
    db,
    sql`select language, doc_count::float8 as "docCount", title_len_sum::float8 as "titleLenSum",
          body_len_sum::float8 as "bodyLenSum", ${collectionVersionSql('search_collections')} as version
        from search_collections where account_id = ${scope.accountId} and name = ${scope.collection}`,
  );
  return rows[0];
}

function toObject(name: string, stats: CollectionStats): CollectionObject {
  return { object: 'collection', name, language: stats.language, document_count: stats.docCount };
}

export async function getCollection({
  ctx,
  scope,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
}): Promise<CollectionObject> {
  const stats = await readCollection(ctx.db, scope);
  if (!stats) {
    throw new ServiceError('not_found', `No collection named '${scope.collection}'.`, {
      param: 'collection',
      code: 'collection_not_found',
      resource: { kind: 'collection', id: scope.collection },
    });
  }
  return toObject(scope.collection, stats);
}

/**
 * Sets a collection's language. Changing it re-analyses every document and rebuilds the
 * vocabulary, statistics and postings in the same transaction.
 */
export async function configureCollection({
  ctx,
  scope,
  language,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
  language: SearchLanguage;
}): Promise<CollectionObject> {
  await ctx.db.transaction(async (tx) => {
    const current = await lockCollection(tx, scope, language);
    if (current === language) return;
    const { accountId: a, collection: c } = scope;
    await tx.execute(
      sql`update search_collections set language = ${language} where account_id = ${a} and name = ${c}`,
    );
    const source = sql`select id, title, body from search_documents where account_id = ${a} and collection = ${c}`;
    await tx.execute(sql`
      update search_documents d set tsv = r.tsv, tf = r.tf, title_len = r.title_len, body_len = r.body_len
      from (${analysedRows(source, language)}) r
      where d.account_id = ${a} and d.collection = ${c} and d.id = r.id`);
    await tx.execute(sql`delete from search_terms where account_id = ${a} and collection = ${c}`);
    await tx.execute(sql`
      insert into search_terms (account_id, collection, term, df)
      select ${a}, ${c}, k, count(*)::int
      from search_documents d, jsonb_object_keys(d.tf) k
      where d.account_id = ${a} and d.collection = ${c}
      group by k`);
    await tx.execute(sql`
      update search_collections s set title_len_sum = x.tl, body_len_sum = x.bl, doc_count = x.n
      from (select count(*) as n, coalesce(sum(title_len), 0) as tl, coalesce(sum(body_len), 0) as bl
            from search_documents where account_id = ${a} and collection = ${c}) x
      where s.account_id = ${a} and s.name = ${c}`);
    await rebuildPostings(tx, scope, 'documents');
  });
  return getCollection({ ctx, scope });
}

/** Deletes a collection with its documents, vocabulary and postings; 404 when it does not exist. */
export async function deleteCollection({
  ctx,
  scope,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
}): Promise<void> {
  const { accountId: a, collection: c } = scope;
  const deleted = await ctx.db.transaction(async (tx) => {
    const rows = await queryRows<{ name: string }>(
      tx,
      sql`delete from search_collections where account_id = ${a} and name = ${c} returning name`,
    );
    // After the row (the order writers take them in): a running merge commits before its blocks go.
    await lockMerges(tx, scope);
    await tx.execute(sql`delete from search_documents where account_id = ${a} and collection = ${c}`);
    await tx.execute(sql`delete from search_terms where account_id = ${a} and collection = ${c}`);
    await tx.execute(sql`delete from search_blocks where account_id = ${a} and collection = ${c}`);
    await tx.execute(sql`delete from search_merges where account_id = ${a} and collection = ${c}`);
    return rows.length > 0;
  });
  if (!deleted) {
    throw new ServiceError('not_found', `No collection named '${c}'.`, {
      param: 'collection',
      code: 'collection_not_found',
      resource: { kind: 'collection', id: scope.collection },
    });
  }
}

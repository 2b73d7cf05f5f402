import type { DocumentList, DocumentObject } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../context';
import { ServiceError } from '../../errors';
import { lockExistingCollection } from './collections';
import { decodeCursor, encodeCursor } from './cursor';
import { queryRows, type Scope } from './sql';
import { removeDocuments } from './write';

interface DocumentRow {
  id: string;
  title: string;
  body: string;
  metadata: Record<string, unknown>;
  updated_at: Date | string;
}

function toObject(collection: string, row: DocumentRow): DocumentObject {
  return {
    object: 'document',
    id: row.id,
    collection,
    title: row.title,
    text: row.body,
    metadata: row.metadata,
    indexed_at: Math.floor(new Date(row.updated_at).getTime() / 1000),
  };
}

function notFound(scope: Scope, id: string): ServiceError {
  return new ServiceError('not_found', `No document '${id}' in collection '${scope.collection}'.`, {
    param: 'id',
    code: 'document_not_found',
    resource: { kind: 'document', id: `${scope.collection}/${id}` },
  });
}

export async function getDocument({
  ctx,
  scope,
  id,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
  id: string;
}): Promise<DocumentObject> {
  const rows = await queryRows<DocumentRow>(
    ctx.db,
    sql`select id, title, body, metadata, updated_at from search_documents
        where account_id = ${scope.accountId} and collection = ${scope.collection} and id = ${id}`,
  );
  const row = rows[0];
  if (!row) throw notFound(scope, id);
  return toObject(scope.collection, row);
}

/** A collection's documents in id order; the cursor is the last id seen. */
export async function listDocuments({
  ctx,
  scope,
  limit,
  cursor,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
  limit: number;
  cursor?: string | undefined;
}): Promise<DocumentList> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, `list:${scope.collection}`).id;
  const rows = await queryRows<DocumentRow>(
    ctx.db,
    sql`select id, title, body, metadata, updated_at from search_documents
        where account_id = ${scope.accountId} and collection = ${scope.collection}
          ${after === undefined ? sql`` : sql`and id > ${after}`}
        order by id limit ${limit + 1}`,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return {
    object: 'list',
    data: page.map((r) => toObject(scope.collection, r)),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ id: last.id }, `list:${scope.collection}`) : null,
  };
}

export async function deleteDocument({
  ctx,
  scope,
  id,
}: {
  ctx: Pick<Ctx, 'db'>;
  scope: Scope;
  id: string;
}): Promise<void> {
  const removed = await ctx.db.transaction(async (tx) => {
    if (!(await lockExistingCollection(tx, scope))) return [];
    return removeDocuments(tx, scope, [id]);
  });
  if (removed.length === 0) throw notFound(scope, id);
}

import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps } from './columns';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** An indexed document. `tsv`, `tf` and the lengths are derived from title and body by the indexer. */
export const searchDocuments = pgTable(
  'search_documents',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    collection: text('collection').notNull(),
    id: text('id').notNull(),
    /**
     * The collection's number for this version of the document, given once and never reused (a
     * replaced document gets a new one): what the compressed postings name (modules/search/blocks.ts).
     */
    ord: bigint('ord', { mode: 'number' }).notNull(),
    title: text('title').notNull().default(''),
    body: text('body').notNull(),
    metadata: jsonb('metadata').notNull().default({}),
    /**
     * Title lexemes weighted A, body lexemes weighted B: matching (GIN) and snippets. Migration 0022 sets the GIN
     * index's gin_pending_list_limit (64 MB; not expressed here) and the background worker empties its pending
     * list after writes (modules/search/maintenance.ts).
     */
    tsv: tsvector('tsv').notNull(),
    /** Lexeme → [frequency in title, frequency in body]: BM25 reads it without unnesting `tsv`. */
    tf: jsonb('tf').notNull(),
    titleLen: integer('title_len').notNull(),
    bodyLen: integer('body_len').notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.collection, t.id] }),
    index('search_documents_tsv_idx').using('gin', t.tsv),
    uniqueIndex('search_documents_ord_idx').on(t.accountId, t.collection, t.ord),
  ],
);

export type SearchDocumentRow = typeof searchDocuments.$inferSelect;

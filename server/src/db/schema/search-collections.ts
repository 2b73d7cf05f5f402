import { bigint, doublePrecision, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { timestamps } from './columns';

/**
 * A namespace of an account's documents, with the statistics BM25 needs (document count, summed
 * field lengths), kept exact in the same transaction as every write. Writers lock this row first,
 * which also serialises concurrent writes to one collection.
 */
export const searchCollections = pgTable(
  'search_collections',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** A Postgres text search configuration (`english`, `simple`, ...). */
    language: text('language').notNull().default('english'),
    docCount: bigint('doc_count', { mode: 'number' }).notNull().default(0),
    titleLenSum: bigint('title_len_sum', { mode: 'number' }).notNull().default(0),
    bodyLenSum: bigint('body_len_sum', { mode: 'number' }).notNull().default(0),
    /**
     * The average title and body lengths the postings' impacts were computed with (null until the
     * collection has postings). Rebased, with every posting recomputed, when the live averages
     * drift too far from them (modules/search/postings.ts).
     */
    impactTitleAvg: doublePrecision('impact_title_avg'),
    impactBodyAvg: doublePrecision('impact_body_avg'),
    /** The highest document ordinal given so far (search_documents.ord); never goes down. */
    nextOrd: bigint('next_ord', { mode: 'number' }).notNull().default(0),
    /** Write batches whose postings were appended: schedules the merges of blocks (blocks.ts). */
    blockGen: integer('block_gen').notNull().default(0),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.accountId, t.name] })],
);

export type SearchCollectionRow = typeof searchCollections.$inferSelect;

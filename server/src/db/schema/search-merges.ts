import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * How far the background merger (modules/search/merges.ts) has merged a collection's blocks: the write batch
 * (search_collections.block_gen) its last merge or rebuild covered. A row of its own rather than a column of
 * search_collections, so that recording a merge never waits for, or makes wait, the writers holding that row.
 * No foreign key, as for the other derived rows: deleting a collection deletes it in the same transaction.
 */
export const searchMerges = pgTable(
  'search_merges',
  {
    accountId: text('account_id').notNull(),
    collection: text('collection').notNull(),
    mergedGen: integer('merged_gen').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.collection] })],
);

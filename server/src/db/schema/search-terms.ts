import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * A collection's vocabulary: each lexeme with its document frequency (for idf), and a trigram
 * index over the lexemes so that fuzzy search can expand a misspelt word into indexed terms. Migration 0022 sets
 * that index's gin_pending_list_limit (64 MB; not expressed here) and the background worker empties its pending
 * list after writes (modules/search/maintenance.ts).
 */
export const searchTerms = pgTable(
  'search_terms',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    collection: text('collection').notNull(),
    term: text('term').notNull(),
    df: integer('df').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.collection, t.term] }),
    index('search_terms_trgm_idx').using('gin', t.term.op('gin_trgm_ops')),
  ],
);

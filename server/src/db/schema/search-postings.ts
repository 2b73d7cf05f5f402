import { index, integer, pgTable, real, text } from 'drizzle-orm/pg-core';

/**
 * Impact-ordered postings: one row per (document, lexeme) of a collection, read in descending
 * `impact` order for top-k search without visiting every match (docs/search.md). The
 * impact is the lexeme's field-weighted, length-normalised frequency computed with the
 * collection's reference averages (`search_collections.impact_*_avg`); the raw frequencies and
 * lengths are kept next to it so that a posting's exact BM25F share under the current statistics
 * can be computed from the index alone. Written and deleted in the same transaction as the
 * documents. No foreign key: a check per posting would double the cost of indexing, and every
 * path that deletes documents or collections deletes their postings in the same statement.
 */
export const searchPostings = pgTable(
  'search_postings',
  {
    accountId: text('account_id').notNull(),
    collection: text('collection').notNull(),
    term: text('term').notNull(),
    impact: real('impact').notNull(),
    docId: text('doc_id').notNull(),
    titleTf: integer('title_tf').notNull(),
    bodyTf: integer('body_tf').notNull(),
    titleLen: integer('title_len').notNull(),
    bodyLen: integer('body_len').notNull(),
  },
  (t) => [
    index('search_postings_impact_idx').on(
      t.accountId,
      t.collection,
      t.term,
      t.impact.desc(),
      t.docId,
      t.titleTf,
      t.bodyTf,
      t.titleLen,
      t.bodyLen,
    ),
  ],
);

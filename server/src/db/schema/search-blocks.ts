import { customType, index, integer, pgTable, real, smallint, text } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Uint8Array }>({ dataType: () => 'bytea' });

/**
 * Compressed postings: each row a block of at most 128 postings of one term of a collection,
 * delta + varint coded (modules/search/blocks.ts), with the block's highest impact so that top-k
 * orders and bounds blocks without decoding them. `level` is the log-structured merge level of
 * the run the block belongs to. No foreign key, as for documents' other derived rows: every path
 * that deletes a collection deletes its blocks in the same transaction.
 */
export const searchBlocks = pgTable(
  'search_blocks',
  {
    accountId: text('account_id').notNull(),
    collection: text('collection').notNull(),
    term: text('term').notNull(),
    level: smallint('level').notNull(),
    maxImpact: real('max_impact').notNull(),
    n: integer('n').notNull(),
    data: bytea('data').notNull(),
    /** The postings' positions (blocks.ts); null in blocks written before positions were kept. */
    pos: bytea('pos'),
    /**
     * The collection's write batch (search_collections.block_gen) that wrote the block, or the last batch a merge
     * or rebuild covered: a background merge takes only blocks of batches committed when it began (blocks.ts).
     */
    gen: integer('gen').notNull().default(0),
  },
  (t) => [
    // One index: a term's blocks of a level by max_impact (top-k reads each level's first blocks
    // and merges them), and a term's blocks of some levels (merges).
    index('search_blocks_term_idx').on(t.accountId, t.collection, t.term, t.level, t.maxImpact.desc()),
  ],
);

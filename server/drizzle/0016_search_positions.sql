ALTER TABLE "search_blocks" ADD COLUMN "pos" "bytea";
-- Positions of each block's postings (modules/search/blocks.ts). Blocks written before this stay NULL: a phrase over
-- a term with such a block is answered by the document check as before (phrase.ts), and a collection gains positions
-- when its postings are next built from its documents.

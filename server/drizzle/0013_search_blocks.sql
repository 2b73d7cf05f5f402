CREATE TABLE "search_blocks" (
	"account_id" text NOT NULL,
	"collection" text NOT NULL,
	"term" text NOT NULL,
	"level" smallint NOT NULL,
	"max_impact" real NOT NULL,
	"n" integer NOT NULL,
	"data" "bytea" NOT NULL
);
--> statement-breakpoint
-- Postings move to compressed blocks (modules/search/blocks.ts), which are built in TypeScript: the
-- references are cleared so that the server's startup step (postings.ts convertCollections) rebuilds
-- each collection's postings from its documents, nothing else being lost; until then its searches
-- score every match, which needs no postings.
DROP TABLE "search_postings" CASCADE;--> statement-breakpoint
UPDATE "search_collections" SET "impact_title_avg" = NULL, "impact_body_avg" = NULL;--> statement-breakpoint
ALTER TABLE "search_collections" ADD COLUMN "next_ord" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "search_collections" ADD COLUMN "block_gen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing documents are numbered 1..n per collection in id order; new ones continue from there.
ALTER TABLE "search_documents" ADD COLUMN "ord" bigint;--> statement-breakpoint
UPDATE "search_documents" d SET "ord" = o."ord"
FROM (SELECT "account_id", "collection", "id",
	row_number() OVER (PARTITION BY "account_id", "collection" ORDER BY "id") AS "ord" FROM "search_documents") o
WHERE d."account_id" = o."account_id" AND d."collection" = o."collection" AND d."id" = o."id";--> statement-breakpoint
ALTER TABLE "search_documents" ALTER COLUMN "ord" SET NOT NULL;--> statement-breakpoint
UPDATE "search_collections" c SET "next_ord" = coalesce((SELECT max("ord") FROM "search_documents" d
	WHERE d."account_id" = c."account_id" AND d."collection" = c."name"), 0);--> statement-breakpoint
CREATE INDEX "search_blocks_term_idx" ON "search_blocks" USING btree ("account_id","collection","term","level","max_impact" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "search_documents_ord_idx" ON "search_documents" USING btree ("account_id","collection","ord");
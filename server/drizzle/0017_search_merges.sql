CREATE TABLE "search_merges" (
	"account_id" text NOT NULL,
	"collection" text NOT NULL,
	"merged_gen" integer NOT NULL,
	CONSTRAINT "search_merges_account_id_collection_pk" PRIMARY KEY("account_id","collection")
);
--> statement-breakpoint
ALTER TABLE "search_blocks" ADD COLUMN "gen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Until now every merge ran inside the write that made it due: each collection is merged as far as its counter.
INSERT INTO "search_merges" ("account_id", "collection", "merged_gen")
SELECT "account_id", "name", "block_gen" FROM "search_collections" WHERE "block_gen" > 0;

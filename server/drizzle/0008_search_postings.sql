CREATE TABLE "search_postings" (
	"account_id" text NOT NULL,
	"collection" text NOT NULL,
	"term" text NOT NULL,
	"impact" real NOT NULL,
	"doc_id" text NOT NULL,
	"title_tf" integer NOT NULL,
	"body_tf" integer NOT NULL,
	"title_len" integer NOT NULL,
	"body_len" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "search_collections" ADD COLUMN "impact_title_avg" double precision;--> statement-breakpoint
ALTER TABLE "search_collections" ADD COLUMN "impact_body_avg" double precision;--> statement-breakpoint
CREATE INDEX "search_postings_impact_idx" ON "search_postings" USING btree ("account_id","collection","term","impact" DESC NULLS LAST,"doc_id","title_tf","body_tf","title_len","body_len");--> statement-breakpoint
-- Backfill: reference averages from the current statistics, and a posting per (document, lexeme)
-- with the impact computed as modules/search/postings.ts does.
UPDATE "search_collections" SET
	"impact_title_avg" = greatest("title_len_sum"::float8 / greatest("doc_count", 1), 1),
	"impact_body_avg" = greatest("body_len_sum"::float8 / greatest("doc_count", 1), 1);--> statement-breakpoint
INSERT INTO "search_postings" ("account_id", "collection", "term", "impact", "doc_id", "title_tf", "body_tf", "title_len", "body_len")
SELECT d."account_id", d."collection", e.key,
	((3::float8 * (e.value ->> 0)::float8 / (0.25::float8 + 0.75::float8 * d."title_len"::float8 / c."impact_title_avg"))
		+ (1::float8 * (e.value ->> 1)::float8 / (0.25::float8 + 0.75::float8 * d."body_len"::float8 / c."impact_body_avg")))::real,
	d."id", (e.value ->> 0)::int, (e.value ->> 1)::int, d."title_len", d."body_len"
FROM "search_documents" d
JOIN "search_collections" c ON c."account_id" = d."account_id" AND c."name" = d."collection"
CROSS JOIN LATERAL jsonb_each(d."tf") e;

-- The GIN indexes of the search tables take new entries into their pending list (fastupdate), which the
-- inserting statement merged into the index once it passed gin_pending_list_limit (4 MB): a few hundred ms
-- every ~1,300 documents, inside a write request. With a 64 MB limit the background worker empties the lists
-- after the writes instead (modules/search/maintenance.ts), through this function, as the tables' owner (the
-- server's role may own nothing: docs/deployment.md, "Database roles"); the limit is a bound, not the cadence.
ALTER INDEX "search_documents_tsv_idx" SET (gin_pending_list_limit = 65536);--> statement-breakpoint
ALTER INDEX "search_terms_trgm_idx" SET (gin_pending_list_limit = 65536);--> statement-breakpoint
CREATE OR REPLACE FUNCTION "search_clean_pending_lists"() RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public
AS $$
  SELECT gin_clean_pending_list('search_documents_tsv_idx'::regclass)
    + gin_clean_pending_list('search_terms_trgm_idx'::regclass)
$$;

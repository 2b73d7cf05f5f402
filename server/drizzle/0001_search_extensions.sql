-- Fuzzy search expands misspelt words through a trigram index on the vocabulary.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Date range filters on free-form metadata: a value that is not a date compares as NULL instead of
-- failing the whole search. Values without an offset are read as UTC, as JavaScript's Date does.
CREATE OR REPLACE FUNCTION search_try_timestamptz(value text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE SET timezone = 'UTC' AS $$
BEGIN
  RETURN value::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;

import { type SQL, sql } from 'drizzle-orm';

/**
 * The analysis every document goes through, as SQL over a row source with `title` and `body`:
 * title lexemes weighted A and body lexemes weighted B in one tsvector, then per lexeme its
 * frequency in each field (`tf`), and the field lengths in lexeme occurrences (stop words excluded).
 * Note Postgres keeps at most 256 positions per lexeme, which caps a term's frequency; BM25
 * saturates long before that.
 */
export function analysedRows(source: SQL, language: string): SQL {
  return sql`
    select a.*, s.tf, s.title_len, s.body_len
    from (
      select src.*,
        setweight(to_tsvector(${language}::regconfig, src.title), 'A')
          || setweight(to_tsvector(${language}::regconfig, src.body), 'B') as tsv
      from (${source}) src
    ) a
    cross join lateral (
      select coalesce(jsonb_object_agg(u.lexeme, jsonb_build_array(c.ta, c.tb)), '{}'::jsonb) as tf,
        coalesce(sum(c.ta), 0)::int as title_len,
        coalesce(sum(c.tb), 0)::int as body_len
      from unnest(a.tsv) u
      cross join lateral (
        select count(*) filter (where w = 'A')::int as ta, count(*) filter (where w = 'B')::int as tb
        from unnest(u.weights) w
      ) c
    ) s`;
}

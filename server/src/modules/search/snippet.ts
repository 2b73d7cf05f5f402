import { type SQL, sql } from 'drizzle-orm';

const START = '\u0002';
const STOP = '\u0003';
/**
 * Snippets are taken from the first this many characters of the body: ts_headline parses all it is
 * given, so this bounds highlighting work per hit (Lucene's highlighters have the same kind of
 * limit). A match only further on still ranks the document; its snippet is then the beginning.
 */
export const HIGHLIGHT_MAX_CHARS = 10_000;

/** The snippet when nothing is marked: the first LEAD_WORDS words (ts_headline's MaxWords) of LEAD_CHARS. */
const LEAD_WORDS = 40;
const LEAD_CHARS = 600;

/**
 * ts_headline does not escape what it returns, so the body is HTML-escaped in SQL first (after
 * removing the two sentinel characters), ts_headline marks matches with the sentinels, and
 * `markSnippet` turns them into <mark>. The result can only hold escaped text and our tags.
 */
export function headlineSql(language: string, highlight: string | null): SQL {
  const escapeHtml = (text: SQL) => sql`replace(replace(replace(replace(replace(
      translate(${text}, chr(2) || chr(3), ''),
      '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')`;
  // Nothing to mark (an exclusion alone): the body's first words, as ts_headline gives when nothing
  // matches, without parsing the body (with a query of negations only ts_headline took ~2 ms a hit).
  if (highlight === null) {
    return escapeHtml(
      sql`array_to_string((regexp_split_to_array(left(d.body, ${LEAD_CHARS}), '[[:space:]]+'))[1:${sql.raw(String(LEAD_WORDS))}], ' ')`,
    );
  }
  const options = `StartSel="${START}", StopSel="${STOP}", MaxWords=40, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;
  return sql`ts_headline(${language}::regconfig, ${escapeHtml(sql`left(d.body, ${HIGHLIGHT_MAX_CHARS})`)}, ${highlight}::tsquery, ${options})`;
}

export function markSnippet(headline: string): string {
  return headline.replace(/\s+/g, ' ').trim().replaceAll(START, '<mark>').replaceAll(STOP, '</mark>');
}

import { type SQL, sql } from 'drizzle-orm';

const START = '\u0002';
const STOP = '\u0003';
/**
 * Snippets are taken from the first this many characters of the body: ts_headline parses all it is
 * given, so this bounds highlighting work per hit (Lucene's highlighters have the same kind of
 * limit). A match only further on still ranks the document; its snippet is then the beginning.
 */
export const HIGHLIGHT_MAX_CHARS = 10_000;

/**
 * ts_headline does not escape what it returns, so the body is HTML-escaped in SQL first (after
 * removing the two sentinel characters), ts_headline marks matches with the sentinels, and
 * `markSnippet` turns them into <mark>. The result can only hold escaped text and our tags.
 */
export function headlineSql(language: SQL, query: SQL): SQL {
  const escaped = sql`replace(replace(replace(replace(replace(
      translate(left(d.body, ${HIGHLIGHT_MAX_CHARS}), chr(2) || chr(3), ''),
      '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')`;
  const options = `StartSel="${START}", StopSel="${STOP}", MaxWords=40, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;
  return sql`ts_headline(${language}, ${escaped}, ${query}, ${options})`;
}

export function markSnippet(headline: string): string {
  return headline.replace(/\s+/g, ' ').trim().replaceAll(START, '<mark>').replaceAll(STOP, '</mark>');
}

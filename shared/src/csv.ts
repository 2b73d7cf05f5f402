export type CsvCell = string | number | null | undefined;

/**
 * One RFC 4180 CSV line (CRLF-terminated): a cell is quoted when it holds a comma, a quote or a line break. A cell
 * that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`, as OWASP
 * advises for CSV exports: error messages, paths, key names and user agents are text that callers chose.
 */
export function csvLine(row: readonly CsvCell[]): string {
  return `${row.map(csvCell).join(',')}\r\n`;
}

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

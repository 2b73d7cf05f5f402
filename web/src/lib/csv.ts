import { type CsvCell, csvLine } from '@tessera/shared';

export type { CsvCell };

/** RFC 4180 CSV, formula-like cells defused (shared/src/csv.ts: the same rules as the server's exports). */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(csvLine).join('');
}

/** Saves CSV text as a file through the browser's download. */
export function downloadCsv(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

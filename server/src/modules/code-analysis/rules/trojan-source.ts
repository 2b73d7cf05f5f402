import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import type { ParsedSource } from '../parsing/parse';

/**
 * Unicode's bidirectional controls (embeddings, overrides, isolates and their terminators): they reorder how a line
 * is displayed without changing what the compiler reads, so reviewed code can differ from the code that runs
 * (CVE-2021-42574, "Trojan Source"). Text that needs them can write them as escapes (`\u202E`).
 */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;

/** One finding per line holding a bidirectional control, in every language (as Bandit B613 and rustc warn). */
export function trojanSource(parsed: ParsedSource): Finding[] {
  const out: Finding[] = [];
  const { source } = parsed;
  let row = 0;
  let nextNewline = source.indexOf('\n');
  let lastRow = -1;
  for (const match of source.matchAll(BIDI)) {
    const index = match.index;
    // Rows are counted forward from the previous match: one pass over the text, however many controls it holds.
    while (nextNewline !== -1 && nextNewline < index) {
      row += 1;
      nextNewline = source.indexOf('\n', nextNewline + 1);
    }
    if (row === lastRow) continue;
    lastRow = row;
    const lineStart = source.lastIndexOf('\n', index - 1) + 1;
    const code = (match[0].codePointAt(0) ?? 0).toString(16).toUpperCase();
    out.push({
      rule_id: 'security/bidi-control-character',
      category: 'security',
      severity: 'high',
      confidence: 'medium',
      message: `This line holds the invisible bidirectional control U+${code}, which makes the code display in another order than it runs (Trojan Source); remove it, or write it as an escape inside a string.`,
      ...locate(parsed, {
        startRow: row,
        startCol: index - lineStart,
        endRow: row,
        endCol: index - lineStart + 1,
        startIndex: index,
        endIndex: index + 1,
      }),
      cwe: 'CWE-838',
    });
    if (out.length >= 200) break;
  }
  return out;
}

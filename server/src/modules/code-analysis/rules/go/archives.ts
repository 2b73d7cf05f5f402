import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { assignmentSides, callParts, enclosingFunction, finding, nodesOf, textOf } from './syntax';

/**
 * Decompression bombs in Go (zip slip is rules/archive-extraction.ts, for every language). Decompression bombs
 * (CWE-409, gosec G110): a decompressing reader (compress/*, a zip entry's Open) copied whole with io.Copy, where
 * io.CopyN or an io.LimitReader would bound what a tiny archive can expand to.
 */

const DECOMPRESSORS = /^(gzip|zlib|flate|bzip2|lzw|zstd|xz|lz4|snappy|brotli)\.NewReader$/;

export function decompressionBombs(parsed: ParsedSource): Finding[] {
  const zip = /"archive\/(zip|tar)"/.test(parsed.source);
  const compress =
    zip || /"(compress\/\w+|github\.com\/[\w./-]*(zstd|xz|lz4|snappy|brotli)[\w./-]*)"/.test(parsed.source);
  if (!compress) return [];
  const out: Finding[] = [];
  for (const call of nodesOf(parsed.root, 'call_expression')) {
    const { callee, args } = callParts(parsed, call);
    const fn = enclosingFunction(call);
    if (!fn) continue;
    const source = callee === 'io.Copy' ? args[1] : callee === 'io.CopyBuffer' ? args[1] : undefined;
    if (source?.type === 'identifier' && decompressing(parsed, fn, textOf(parsed, source), zip))
      out.push(
        finding(parsed, call, {
          rule_id: 'security/decompression-bomb',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-409',
          message:
            'A decompressed stream is copied whole, so a small archive can expand to fill memory or disk (a decompression bomb); copy at most a limit with io.CopyN or through io.LimitReader.',
        }),
      );
  }
  return out;
}

/** Whether `name` is assigned, in `fn`, a decompressing reader (or a zip entry's Open). */
function decompressing(parsed: ParsedSource, fn: SyntaxNode, name: string, zip: boolean): boolean {
  return nodesOf(fn, new Set(['short_var_declaration', 'assignment_statement'])).some((d) => {
    const sides = assignmentSides(d);
    if (!sides || textOf(parsed, sides.left[0] ?? d) !== name) return false;
    const value = sides.right[0];
    if (value?.type !== 'call_expression') return false;
    const { callee, args } = callParts(parsed, value);
    return DECOMPRESSORS.test(callee) || (zip && /\.Open$/.test(callee) && args.length === 0);
  });
}

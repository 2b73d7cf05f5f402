import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { assignmentSides, callParts, enclosingFunction, finding, nodesOf, textOf } from './syntax';

/**
 * Archive extraction in Go. Zip slip (CWE-22, gosec G305): an entry's name (`f.Name` of a zip.File or tar.Header)
 * joined onto the destination with no containment check in the function (`strings.HasPrefix` of the cleaned path,
 * `filepath.Rel`, `filepath.IsLocal`, a `".."` test), so `../../etc/cron.d/x` lands outside it. Decompression bombs
 * (CWE-409, gosec G110): a decompressing reader (compress/*, a zip entry's Open) copied whole with io.Copy, where
 * io.CopyN or an io.LimitReader would bound what a tiny archive can expand to.
 */

const JOIN = /^(filepath|path)\.Join$/;
const CONTAINED = /HasPrefix\(|filepath\.Rel\(|IsLocal\(|"\.\."|securejoin|SecureJoin/;
const DECOMPRESSORS = /^(gzip|zlib|flate|bzip2|lzw|zstd|xz|lz4|snappy|brotli)\.NewReader$/;

export function archiveExtraction(parsed: ParsedSource): Finding[] {
  const zip = /"archive\/(zip|tar)"/.test(parsed.source);
  const compress =
    zip || /"(compress\/\w+|github\.com\/[\w./-]*(zstd|xz|lz4|snappy|brotli)[\w./-]*)"/.test(parsed.source);
  if (!compress) return [];
  const out: Finding[] = [];
  for (const call of nodesOf(parsed.root, 'call_expression')) {
    const { callee, args } = callParts(parsed, call);
    const fn = enclosingFunction(call);
    if (!fn) continue;
    const body = textOf(parsed, fn);
    if (
      zip &&
      JOIN.test(callee) &&
      args.some((a) => /^\w+\.Name$/.test(textOf(parsed, a))) &&
      !CONTAINED.test(body)
    )
      out.push(
        finding(parsed, call, {
          rule_id: 'security/archive-path-traversal',
          category: 'security',
          severity: 'high',
          confidence: 'medium',
          cwe: 'CWE-22',
          message:
            "An archive entry's name is joined onto the destination without checking that the result stays inside it, so an entry named `../../x` is written elsewhere (zip slip); reject names where filepath.IsLocal is false or the cleaned path lacks the destination prefix.",
        }),
      );
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

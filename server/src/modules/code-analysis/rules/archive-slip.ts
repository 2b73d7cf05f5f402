import type { CodeLanguage, Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

/**
 * Zip slip (CWE-22) outside Go (rules/go/archives.ts has Go's): an archive entry's own name used as a path under
 * the destination in a function that never checks the result stays inside it. Java: `new File(dir, e.getName())`,
 * `Paths.get(dir, e.getName())` or `dir.resolve(e.getName())` in a method that reads zip/tar entries (`ZipEntry`,
 * `getNextEntry`, `ArchiveEntry`) and has no `getCanonicalPath`/`normalize()` + `startsWith` test. Python:
 * `tarfile`'s `extractall()` without `filter=` or with `filter='fully_trusted'` (Bandit B202; zipfile's own
 * extractall sanitises names).
 */

interface Spec {
  call: string;
  /** The call that builds a path from an entry name. */
  sink: RegExp;
  /** The function reads archive entries. */
  archive: RegExp;
  /** A containment check in the same function. */
  contained: RegExp;
}

const SPECS: Partial<Record<CodeLanguage, Spec>> = {
  java: {
    call: 'object_creation_expression|method_invocation',
    sink: /^(new\s+(java\.io\.)?File\s*\(|(Paths\.get|Path\.of)\s*\(|[\w.()]+\.resolve\s*\()[^;]*\b\w+\.getName\(\)\s*\)$/,
    archive: /\bZipEntry\b|\bJarEntry\b|getNextEntry\(|getNextJarEntry\(|ArchiveEntry\b|getNextTarEntry\(/,
    contained:
      /getCanonicalPath\(|toRealPath\(|normalize\(\)[\s\S]*startsWith\(|startsWith\([\s\S]*normalize\(\)/,
  },
  python: {
    call: 'call',
    // Safe: a `filter=` other than 'fully_trusted', or `members=` chosen by a function (Bandit's low-severity case).
    sink: /^[\w.]+\.extractall\((?![\s\S]*\bfilter\s*=\s*(?!["']fully_trusted))(?![\s\S]*\bmembers\s*=\s*\w+\()[\s\S]*\)$/,
    archive: /tarfile\.open\(|TarFile\(/,
    contained: /\.is_relative_to\(|os\.path\.commonpath\(|commonprefix\(/,
  },
};

const MESSAGE =
  "An archive entry's own name becomes a path under the destination without a check that it stays inside, so an entry named `../../x` is written elsewhere (zip slip); resolve the path, compare it with the destination's canonical path, and reject entries outside it (Python: extractall(filter='data')).";

export function archiveSlips(parsed: ParsedSource): Finding[] {
  const spec = SPECS[parsed.language];
  if (!spec || !spec.archive.test(parsed.source)) return [];
  const types = new Set(spec.call.split('|'));
  const functions = PROFILES[parsed.language].functions;
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (!types.has(node.type)) return true;
    const text = parsed.source.slice(node.startIndex, node.endIndex);
    if (!spec.sink.test(text)) return true;
    let scope: SyntaxNode | null = node.parent;
    while (scope && !functions[scope.type]) scope = scope.parent;
    const body = parsed.source.slice((scope ?? parsed.root).startIndex, (scope ?? parsed.root).endIndex);
    if (!spec.archive.test(body) || spec.contained.test(body)) return true;
    out.push({
      rule_id: 'security/archive-path-traversal',
      category: 'security',
      severity: 'high',
      confidence: 'medium',
      message: MESSAGE,
      ...locate(parsed, node),
      cwe: 'CWE-22',
    });
    return true;
  });
  return out;
}

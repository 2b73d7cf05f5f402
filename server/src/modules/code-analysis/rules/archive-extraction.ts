import type { CodeLanguage, Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

/**
 * How one language writes archive extraction by hand: the call that builds or opens a path, the expression that
 * reads a member's name from the archive, and the check that keeps the result inside the target directory.
 */
interface ExtractionSpec {
  calls: Set<string>;
  /** The callee of a call that builds a path or creates a file (matched against the call's text from its start). */
  pathCall: RegExp;
  /** A member's name as the archive gives it (`entry.getName()`, `entry.FullName`, `hdr.Name`). */
  entryName: RegExp;
  /** A containment check in the same function (canonical path and prefix, relative path, a `..` test). */
  guard: RegExp;
  /** Text the file must hold for the language's archive APIs to be in play. */
  needles: string[];
}

/** A test of the name for `..` is a guard in any language. */
const DOT_DOT = /["'`]\.\.(\/|\\\\)?["'`]/;

const JVM_GUARD =
  /getCanonicalPath|getCanonicalFile|toRealPath|\.normalize\(\)[\s\S]*startsWith|startsWith\(/;
const JVM_PATH =
  /^(new\s+(java\.io\.)?(File|FileOutputStream|FileWriter|RandomAccessFile)\s*\(|(java\.nio\.file\.)?(Paths\.get|Path\.of)\s*\(|Files\.(newOutputStream|copy|write|createFile|createDirectories)\s*\(|[\w.()]+\.resolve\s*\(|(File|FileOutputStream)\s*\()/;
const JVM_ENTRY = /\b\w*(entry|Entry|ENTRY)\w*\s*\.\s*(getName\(\)|name\b)/;

const JS: ExtractionSpec = {
  calls: new Set(['call_expression', 'new_expression']),
  pathCall:
    /^(path\.(join|resolve)|(fs|fse|fsp)\.(createWriteStream|writeFile|writeFileSync|mkdir|mkdirSync|outputFile|outputFileSync|ensureDir|ensureDirSync)|join|resolve)\s*\(/,
  entryName: /\b\w*(entry|Entry|header|Header|zipEntry)\w*\.(path|fileName|entryName|name)\b/,
  guard: /\.startsWith\(|path\.relative\(|\.indexOf\([^)]*\)\s*!==?\s*0|isWithin|isInside/,
  needles: ['zip', 'Zip', 'tar', 'Tar', 'unzip', 'yauzl', 'entry'],
};

const SPECS: Partial<Record<CodeLanguage, ExtractionSpec>> = {
  java: {
    calls: new Set(['method_invocation', 'object_creation_expression']),
    pathCall: JVM_PATH,
    entryName: JVM_ENTRY,
    guard: JVM_GUARD,
    needles: ['ZipEntry', 'ZipInputStream', 'ZipFile', 'ArchiveEntry', 'JarEntry', 'TarArchive'],
  },
  kotlin: {
    calls: new Set(['call_expression']),
    pathCall: JVM_PATH,
    entryName: JVM_ENTRY,
    guard: JVM_GUARD,
    needles: ['ZipEntry', 'ZipInputStream', 'ZipFile', 'ArchiveEntry', 'JarEntry', 'TarArchive'],
  },
  scala: {
    calls: new Set(['call_expression', 'instance_expression']),
    pathCall: JVM_PATH,
    entryName: JVM_ENTRY,
    guard: JVM_GUARD,
    needles: ['ZipEntry', 'ZipInputStream', 'ZipFile', 'ArchiveEntry', 'JarEntry', 'TarArchive'],
  },
  csharp: {
    calls: new Set(['invocation_expression', 'object_creation_expression']),
    pathCall:
      /^(Path\.Combine|(System\.IO\.)?File\.(Create|OpenWrite|WriteAllBytes|WriteAllText|Open)|Directory\.CreateDirectory|new\s+FileStream|\w+\.ExtractToFile)\s*\(/,
    entryName: /\b\w*(entry|Entry)\w*\.(FullName|Name|Key)\b/,
    guard: /GetFullPath[\s\S]*StartsWith|\.StartsWith\(/,
    needles: ['ZipArchive', 'ZipFile', 'TarReader', 'TarEntry', 'IArchiveEntry', 'Entries'],
  },
  javascript: JS,
  typescript: JS,
  tsx: JS,
  go: {
    calls: new Set(['call_expression']),
    pathCall: /^(filepath\.Join|path\.Join|os\.(Create|OpenFile|MkdirAll|Mkdir|WriteFile))\s*\(/,
    entryName: /\b(f|file|zf|zipFile|hdr|header|h|entry|e)\.Name\b/,
    guard:
      /strings\.HasPrefix\(|filepath\.Rel\(|filepath\.IsLocal\(|\.\.\/?"\)|strings\.Contains\([^)]*"\.\."/,
    needles: ['"archive/zip"', '"archive/tar"'],
  },
  ruby: {
    calls: new Set(['call']),
    pathCall: /^(File\.(join|open|write|expand_path|new)|FileUtils\.(mkdir_p|cp|mv)|Pathname\.new)\s*\(/,
    entryName: /\b\w*(entry|Entry)\w*\.(name|full_name)\b/,
    guard: /\.start_with\?\(|realpath|include\?\(['"]\.\.['"]\)/,
    needles: ['Zip', "'zip'", 'TarReader', 'Gem::Package', 'Archive'],
  },
  php: {
    calls: new Set(['function_call_expression']),
    pathCall: /^(fopen|file_put_contents|mkdir|copy|touch|rename)\s*\(/,
    entryName:
      /->getNameIndex\(|\bzip_entry_name\(|\$\w*(entry|Entry)\w*\[['"]name['"]\]|\$\w*(entry|Entry)\w*->getFilename\(\)/,
    guard: /realpath\(|str_starts_with\(|strpos\(/,
    needles: ['ZipArchive', 'zip_entry_name', 'PharData', 'getNameIndex'],
  },
  rust: {
    calls: new Set(['call_expression']),
    pathCall:
      /^([\w.()&?]+\.join|(std::)?fs::(write|create_dir_all|create_dir)|(std::fs::)?File::create)\s*\(/,
    entryName: /\b\w*(file|entry|Entry)\w*\.(name|path)\(\)/,
    guard: /enclosed_name|\.starts_with\(|canonicalize/,
    needles: ['zip::', 'ZipArchive', 'tar::', 'Archive'],
  },
  swift: {
    calls: new Set(['call_expression']),
    pathCall: /^([\w.]+\.appendingPathComponent|URL\(fileURLWithPath:|[\w.]+\.(createFile|write))\s*\(/,
    entryName: /\b\w*(entry|Entry)\w*\.path\b/,
    guard: /hasPrefix\(|standardized|resolvingSymlinksInPath/,
    needles: ['ZIPFoundation', 'Archive', 'Entry'],
  },
  python: {
    calls: new Set(['call']),
    pathCall: /^(os\.path\.join|open|os\.makedirs|pathlib\.Path|Path|shutil\.copyfileobj)\s*\(/,
    entryName: /\b\w*(info|member|entry|zinfo|Info)\w*\.(filename|name)\b/,
    guard:
      /os\.path\.(realpath|abspath|commonpath|commonprefix)[\s\S]*(startswith|==)|\.is_relative_to\(|\.startswith\(/,
    needles: ['zipfile', 'tarfile', 'ZipFile'],
  },
};

const MESSAGE =
  "`{call}` builds a path from an archive member's name, so a name like `../../etc/cron.d/x` or an absolute path writes outside the target directory (Zip Slip); resolve the path and check it is still inside the target before writing.";

/**
 * Zip Slip (CWE-22) in hand-written extraction loops, as CodeQL's java/zipslip, FindSecBugs and gosec G305 read it:
 * a member's name from the archive reaches a path-building or file-creating call, in a function with no containment
 * check (canonical path + prefix, a relative path, a `..` test). Archive libraries that sanitise names themselves
 * are not matched (they are not written this way; Rust's `enclosed_name()` is the guarded form); Python's tarfile.extractall
 * is python-risky-calls.ts.
 */
export function archiveExtraction(parsed: ParsedSource): Finding[] {
  const spec = SPECS[parsed.language];
  if (!spec?.needles.some((n) => parsed.source.includes(n))) return [];
  const functions = PROFILES[parsed.language].functions;
  const text = (n: SyntaxNode) => parsed.source.slice(n.startIndex, n.endIndex);
  const matches: SyntaxNode[] = [];
  walk(parsed.root, (node) => {
    if (!spec.calls.has(node.type)) return true;
    const call = text(node);
    if (!spec.pathCall.test(call) || !spec.entryName.test(call)) return true;
    let scope: SyntaxNode | null = node.parent;
    while (scope && !functions[scope.type]) scope = scope.parent;
    const body = text(scope ?? parsed.root);
    if (!spec.guard.test(body) && !DOT_DOT.test(body)) matches.push(node);
    return true;
  });
  // The innermost call is the finding: `new FileOutputStream(new File(dir, e.getName()))` is one.
  const innermost = matches.filter(
    (m) => !matches.some((o) => o !== m && o.startIndex >= m.startIndex && o.endIndex <= m.endIndex),
  );
  return innermost.map((node) => {
    const first = text(node).split('\n', 1)[0] ?? '';
    return {
      rule_id: 'security/archive-extraction',
      category: 'security',
      severity: 'high',
      confidence: 'medium',
      message: MESSAGE.replace('{call}', first.length > 80 ? `${first.slice(0, 80)}…` : first),
      ...locate(parsed, node),
      cwe: 'CWE-22',
    };
  });
}

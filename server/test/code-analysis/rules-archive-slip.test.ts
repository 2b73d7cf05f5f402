/** Zip slip (CWE-22) and decompression bombs (CWE-409) when extracting archives, in Go, Java and Python. */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const GO_ZIP = (body: string) =>
  `package m\nimport (\n\t"archive/zip"\n\t"io"\n\t"os"\n\t"path/filepath"\n\t"strings"\n)\nfunc extract(f *zip.File, dest string) error {\n${body}\n\treturn nil\n}\n`;

/** [rule, cwe, language, vulnerable, safe] */
const CASES: [string, string, CodeLanguage, string, string][] = [
  [
    'security/archive-path-traversal',
    'CWE-22',
    'go',
    GO_ZIP('\tp := filepath.Join(dest, f.Name)\n\tout, _ := os.Create(p)\n\t_ = out'),
    GO_ZIP(
      '\tp := filepath.Join(dest, f.Name)\n\tif !strings.HasPrefix(p, filepath.Clean(dest)+string(os.PathSeparator)) {\n\t\treturn nil\n\t}\n\tout, _ := os.Create(p)\n\t_ = out',
    ),
  ],
  [
    'security/decompression-bomb',
    'CWE-409',
    'go',
    GO_ZIP('\trc, _ := f.Open()\n\tio.Copy(os.Stdout, rc)\n\t_ = strings.ToLower\n\t_ = filepath.Join'),
    GO_ZIP(
      '\trc, _ := f.Open()\n\tio.CopyN(os.Stdout, rc, 1<<20)\n\t_ = strings.ToLower\n\t_ = filepath.Join',
    ),
  ],
  [
    'security/archive-path-traversal',
    'CWE-22',
    'java',
    'class X { void f(ZipInputStream in, File dir) throws Exception { ZipEntry e; while ((e = in.getNextEntry()) != null) { File out = new File(dir, e.getName()); write(in, out); } } }',
    'class X { void f(ZipInputStream in, File dir) throws Exception { ZipEntry e; while ((e = in.getNextEntry()) != null) { File out = new File(dir, e.getName()); if (!out.getCanonicalPath().startsWith(dir.getCanonicalPath() + File.separator)) throw new IOException("bad entry"); write(in, out); } } }',
  ],
  [
    'security/archive-path-traversal',
    'CWE-22',
    'python',
    'import tarfile\nwith tarfile.open(path) as t:\n    t.extractall(dest)\n',
    'import tarfile\nwith tarfile.open(path) as t:\n    t.extractall(dest, filter="data")\n',
  ],
  [
    'security/archive-path-traversal',
    'CWE-22',
    'python',
    'import tarfile\nt = tarfile.open(path)\nt.extractall(path=mkdtemp(), filter="fully_trusted")\n',
    'import tarfile\nt = tarfile.open(path)\nt.extractall(path=mkdtemp(), members=safe_members(t))\n',
  ],
];

describe('archive extraction: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, cwe, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      const bad = (await findings(vulnerable, language)).filter((f) => f.rule_id === rule);
      expect(bad.length, vulnerable).toBeGreaterThan(0);
      expect(bad[0]?.cwe).toBe(cwe);
      expect(
        (await findings(safe, language)).filter((f) => f.rule_id === rule),
        safe,
      ).toEqual([]);
    });
  }
});

/**
 * Families that apply across languages: bidirectional control characters (Trojan Source) in any source, wildcard
 * injection in shell scripts, archive members' names written as paths without a containment check (Zip Slip), template engines with escaping turned off, XML parsers resolving external entities. Each vulnerable example fires its rule on the expected line, each safe one does not.
 */
import type { CodeLanguage, Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import type { RuleCase } from '../helpers/code-analysis';

async function issuesAtLow(code: string, language: CodeLanguage): Promise<Finding[]> {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

const BIDI = 'security/bidi-control-character';
const RLO = '\u202E';
const LRI = '\u2066';
const PDI = '\u2069';

/** The same trick in each language: a comment that hides the end of a string from the reader. */
const TROJAN: [CodeLanguage, string, string][] = [
  [
    'python',
    `level = "user"\nif level != 'none${RLO}${LRI}': # admin${PDI}${LRI}' and level != 'user\n    print(1)\n`,
    'level = "user"\nif level != "none":\n    print(1)\n',
  ],
  [
    'javascript',
    `const level = "user";\nif (level != "user${RLO} ${LRI}// admin${PDI}${LRI}") { run(); }\n`,
    'const level = "user";\nif (level != "user") { run(); }\n',
  ],
  [
    'go',
    `package m\nfunc f(level string) bool {\n\treturn level != "user${RLO} ${LRI}// admin${PDI}${LRI}"\n}\n`,
    'package m\nfunc f(level string) bool {\n\treturn level != "user"\n}\n',
  ],
  [
    'java',
    `class A {\n  boolean f(String l) { return !l.equals("user${RLO} ${LRI}// admin${PDI}${LRI}"); }\n}\n`,
    'class A {\n  boolean f(String l) { return !l.equals("user"); }\n}\n',
  ],
  [
    'rust',
    `fn f(l: &str) -> bool {\n    l != "user${RLO} ${LRI}// admin${PDI}${LRI}"\n}\n`,
    'fn f(l: &str) -> bool {\n    l != "user\\u{202E}"\n}\n',
  ],
];

const WILDCARD: RuleCase[] = [
  [
    'security/wildcard-injection',
    'bash',
    'cd /srv/uploads\ntar czf /backup/u.tgz *\n',
    'cd /srv/uploads\ntar czf /backup/u.tgz ./*\n',
  ],
  ['security/wildcard-injection', 'bash', 'chown -R app:app *.log\n', 'chown -R app:app -- *.log\n'],
];

/** Hand-written extraction loops: [language, vulnerable, with a containment check, the vulnerable line]. */
const ZIP_SLIP: [CodeLanguage, string, string, number][] = [
  [
    'rust',
    'use std::fs;\nuse std::io;\nfn unzip(archive: &mut zip::ZipArchive<fs::File>, dest: &std::path::Path) -> io::Result<()> {\n    for i in 0..archive.len() {\n        let mut file = archive.by_index(i)?;\n        let out = dest.join(file.name());\n        let mut w = fs::File::create(&out)?;\n        io::copy(&mut file, &mut w)?;\n    }\n    Ok(())\n}\n',
    'use std::fs;\nuse std::io;\nfn unzip(archive: &mut zip::ZipArchive<fs::File>, dest: &std::path::Path) -> io::Result<()> {\n    for i in 0..archive.len() {\n        let mut file = archive.by_index(i)?;\n        let Some(name) = file.enclosed_name() else { continue };\n        let out = dest.join(name);\n        let mut w = fs::File::create(&out)?;\n        io::copy(&mut file, &mut w)?;\n    }\n    Ok(())\n}\n',
    6,
  ],
  [
    'php',
    "<?php\nfunction unzip($file, $dest) {\n    $zip = new ZipArchive();\n    $zip->open($file);\n    for ($i = 0; $i < $zip->numFiles; $i++) {\n        file_put_contents($dest . '/' . $zip->getNameIndex($i), $zip->getFromIndex($i));\n    }\n}\n",
    "<?php\nfunction unzip($file, $dest) {\n    $zip = new ZipArchive();\n    $zip->open($file);\n    for ($i = 0; $i < $zip->numFiles; $i++) {\n        $name = $zip->getNameIndex($i);\n        if (strpos($name, '..') !== false) continue;\n        file_put_contents($dest . '/' . $zip->getNameIndex($i), $zip->getFromIndex($i));\n    }\n}\n",
    6,
  ],
  [
    'swift',
    'import ZIPFoundation\nfunc unzip(archive: Archive, dest: URL) throws {\n    for entry in archive {\n        _ = try archive.extract(entry, to: dest.appendingPathComponent(entry.path))\n    }\n}\n',
    'import ZIPFoundation\nfunc unzip(archive: Archive, dest: URL) throws {\n    for entry in archive {\n        let target = dest.appendingPathComponent(entry.path).standardized\n        guard target.path.hasPrefix(dest.standardized.path) else { continue }\n        _ = try archive.extract(entry, to: target)\n    }\n}\n',
    4,
  ],
  [
    'java',
    'import java.util.zip.*;\nimport java.io.*;\nclass A {\n  void unzip(ZipInputStream zis, File dest) throws IOException {\n    ZipEntry entry;\n    while ((entry = zis.getNextEntry()) != null) {\n      File out = new File(dest, entry.getName());\n      try (FileOutputStream fos = new FileOutputStream(out)) { zis.transferTo(fos); }\n    }\n  }\n}\n',
    'import java.util.zip.*;\nimport java.io.*;\nclass A {\n  void unzip(ZipInputStream zis, File dest) throws IOException {\n    ZipEntry entry;\n    while ((entry = zis.getNextEntry()) != null) {\n      File out = new File(dest, entry.getName());\n      if (!out.getCanonicalPath().startsWith(dest.getCanonicalPath() + File.separator)) throw new IOException("bad");\n      try (FileOutputStream fos = new FileOutputStream(out)) { zis.transferTo(fos); }\n    }\n  }\n}\n',
    7,
  ],
  [
    'javascript',
    "const path = require('path');\nconst fs = require('fs');\nfunction unzip(zip, dest) {\n  for (const entry of zip.getEntries()) {\n    fs.writeFileSync(path.join(dest, entry.entryName), entry.getData());\n  }\n}\n",
    "const path = require('path');\nconst fs = require('fs');\nfunction unzip(zip, dest) {\n  for (const entry of zip.getEntries()) {\n    const target = path.resolve(dest, entry.entryName);\n    if (!target.startsWith(path.resolve(dest) + path.sep)) throw new Error('bad');\n    fs.writeFileSync(target, entry.getData());\n  }\n}\n",
    5,
  ],
  [
    'csharp',
    'using System.IO;\nusing System.IO.Compression;\nclass A {\n  void Unzip(ZipArchive archive, string dest) {\n    foreach (ZipArchiveEntry entry in archive.Entries) {\n      entry.ExtractToFile(Path.Combine(dest, entry.FullName));\n    }\n  }\n}\n',
    'using System.IO;\nusing System.IO.Compression;\nclass A {\n  void Unzip(ZipArchive archive, string dest) {\n    foreach (ZipArchiveEntry entry in archive.Entries) {\n      string p = Path.GetFullPath(Path.Combine(dest, entry.FullName));\n      if (!p.StartsWith(Path.GetFullPath(dest))) throw new IOException();\n      entry.ExtractToFile(p);\n    }\n  }\n}\n',
    6,
  ],
  [
    'go',
    'package m\n\nimport (\n\t"archive/zip"\n\t"os"\n\t"path/filepath"\n)\n\nfunc unzip(r *zip.Reader, dest string) {\n\tfor _, f := range r.File {\n\t\tp := filepath.Join(dest, f.Name)\n\t\tos.Create(p)\n\t}\n}\n',
    'package m\n\nimport (\n\t"archive/zip"\n\t"os"\n\t"path/filepath"\n\t"strings"\n)\n\nfunc unzip(r *zip.Reader, dest string) {\n\tfor _, f := range r.File {\n\t\tp := filepath.Join(dest, f.Name)\n\t\tif !strings.HasPrefix(p, filepath.Clean(dest)+string(os.PathSeparator)) {\n\t\t\tcontinue\n\t\t}\n\t\tos.Create(p)\n\t}\n}\n',
    11,
  ],
  [
    'kotlin',
    'import java.util.zip.ZipInputStream\nimport java.io.File\nfun unzip(zis: ZipInputStream, dest: File) {\n    var entry = zis.nextEntry\n    while (entry != null) {\n        val out = File(dest, entry.name)\n        out.outputStream().use { zis.copyTo(it) }\n        entry = zis.nextEntry\n    }\n}\n',
    'import java.util.zip.ZipInputStream\nimport java.io.File\nfun unzip(zis: ZipInputStream, dest: File) {\n    var entry = zis.nextEntry\n    while (entry != null) {\n        val out = File(dest, entry.name)\n        if (!out.canonicalPath.startsWith(dest.canonicalPath + File.separator)) throw SecurityException()\n        out.outputStream().use { zis.copyTo(it) }\n        entry = zis.nextEntry\n    }\n}\n',
    6,
  ],
  [
    'ruby',
    "require 'zip'\ndef unzip(zip, dest)\n  zip.each do |entry|\n    entry.extract(File.join(dest, entry.name))\n  end\nend\n",
    "require 'zip'\ndef unzip(zip, dest)\n  zip.each do |entry|\n    path = File.expand_path(File.join(dest, entry.name))\n    raise 'bad' unless path.start_with?(File.expand_path(dest) + '/')\n    entry.extract(path)\n  end\nend\n",
    4,
  ],
  [
    'python',
    "import os\nimport zipfile\ndef unzip(zf, dest):\n    for info in zf.infolist():\n        with open(os.path.join(dest, info.filename), 'wb') as out:\n            out.write(zf.read(info))\n",
    'import os\nimport zipfile\ndef unzip(zf, dest):\n    for info in zf.infolist():\n        target = os.path.realpath(os.path.join(dest, info.filename))\n        if not target.startswith(os.path.realpath(dest) + os.sep):\n            raise ValueError(info.filename)\n',
    5,
  ],
];

describe('bidirectional control characters (Trojan Source), in every language', () => {
  for (const [language, vulnerable, safe] of TROJAN) {
    it(language, async () => {
      const issues = await issuesAtLow(vulnerable, language);
      const bidi = issues.filter((i) => i.rule_id === BIDI);
      expect(bidi).toHaveLength(1);
      expect(bidi[0]).toMatchObject({
        cwe: 'CWE-838',
        severity: 'high',
        line: vulnerable.startsWith('package') ? 3 : 2,
      });
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(BIDI);
    });
  }
});

describe('wildcard injection in shell scripts', () => {
  for (const [rule, language, vulnerable, safe] of WILDCARD) {
    it(vulnerable.trim().split('\n').at(-1) ?? '', async () => {
      expect((await issuesAtLow(vulnerable, language)).map((i) => i.rule_id)).toContain(rule);
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(rule);
    });
  }
});

describe('archive extraction (Zip Slip) across languages', () => {
  for (const [language, vulnerable, safe, line] of ZIP_SLIP) {
    it(language, async () => {
      expect(await issuesAtLow(vulnerable, language)).toContainEqual(
        expect.objectContaining({ rule_id: 'security/archive-extraction', cwe: 'CWE-22', line }),
      );
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(
        'security/archive-extraction',
      );
    });
  }
});

const TEMPLATES: RuleCase[] = [
  [
    'security/template-autoescape-off',
    'javascript',
    "const env = nunjucks.configure('views', { autoescape: false });",
    "const env = nunjucks.configure('views', { autoescape: true });",
  ],
  [
    'security/template-autoescape-off',
    'typescript',
    'Mustache.escape = (text: string) => text;',
    'const html = Mustache.render(template, view);',
  ],
  [
    'security/template-autoescape-off',
    'php',
    "<?php\n$twig = new \\Twig\\Environment($loader, ['autoescape' => false]);\n",
    "<?php\n$twig = new \\Twig\\Environment($loader, ['autoescape' => 'html']);\n",
  ],
  [
    'security/template-autoescape-off',
    'ruby',
    'engine = Haml::Engine.new(source, escape_html: false)\n',
    'engine = Haml::Engine.new(source, escape_html: true)\n',
  ],
  [
    'security/template-autoescape-off',
    'ruby',
    'Slim::Engine.set_options(disable_escape: true)\n',
    'Slim::Engine.set_options(pretty: true)\n',
  ],
];

describe('template engines with escaping turned off', () => {
  for (const [rule, language, vulnerable, safe] of TEMPLATES) {
    it(`${language}: ${vulnerable.trim()}`, async () => {
      expect((await issuesAtLow(vulnerable, language)).map((i) => i.rule_id)).toContain(rule);
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(rule);
    });
  }
});

const XXE: RuleCase[] = [
  [
    'security/xxe',
    'kotlin',
    'import javax.xml.parsers.DocumentBuilderFactory\nfun parse(s: java.io.InputStream) = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(s)\n',
    'import javax.xml.parsers.DocumentBuilderFactory\nfun parse(s: java.io.InputStream): org.w3c.dom.Document {\n    val f = DocumentBuilderFactory.newInstance()\n    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)\n    return f.newDocumentBuilder().parse(s)\n}\n',
  ],
  [
    'security/xxe',
    'swift',
    'let parser = XMLParser(data: data)\nparser.shouldResolveExternalEntities = true\n',
    'let parser = XMLParser(data: data)\nparser.shouldResolveExternalEntities = false\n',
  ],
  [
    'security/xxe',
    'c',
    'void f(const char *p) { xmlReadFile(p, NULL, XML_PARSE_NOENT); }\n',
    'void f(const char *p) { xmlReadFile(p, NULL, XML_PARSE_NONET); }\n',
  ],
  [
    'security/xxe',
    'php',
    '<?php\n$dom = new DOMDocument();\n$dom->substituteEntities = true;\n$dom->loadXML($xml);\n',
    '<?php\n$dom = new DOMDocument();\n$dom->loadXML($xml);\n',
  ],
  [
    'security/xxe',
    'csharp',
    'class A { void F() { var s = new System.Xml.XmlReaderSettings(); s.ProhibitDtd = false; } }\n',
    'class A { void F() { var s = new System.Xml.XmlReaderSettings(); s.ProhibitDtd = true; } }\n',
  ],
  [
    'security/xxe',
    'javascript',
    'const doc = libxmljs.parseXml(xml, { dtdload: true });',
    'const doc = libxmljs.parseXml(xml, { dtdload: false });',
  ],
];

describe('XML parsers told to resolve external entities or load DTDs', () => {
  for (const [rule, language, vulnerable, safe] of XXE) {
    it(language, async () => {
      expect((await issuesAtLow(vulnerable, language)).map((i) => i.rule_id)).toContain(rule);
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(rule);
    });
  }
});

/**
 * Security findings on real code that is not a test case: how often each rule speaks on ordinary library and
 * application code at the default confidence (medium). Mature libraries are not vulnerability-free, but a rule
 * that fires on many of their files is a precision problem the fixtures cannot show: the held-out corpora are
 * scored at precision ≥ 0.85. Run it before and after a change (`--json=FILE`, then `--diff=OLD.json`) and read
 * every rule whose count rose.
 *
 * The code is what this machine has: Python's standard library and the Google Cloud SDK's Python, PHP and Go,
 * the JDK's sources (src.zip; Temurin 25 or OpenJDK 17), JavaScript and TypeScript of node_modules, tree-sitter's C scanners. Files are
 * taken in sorted order, every k-th, up to `--per=N` a language (default 300).
 *   cd server && npx tsx ../bench/code-analysis/real-code.ts [--per=300] [--json=out.json] [--diff=old.json] [--show=RULE]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeSource } from '../../server/src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis/types';
import type { CodeLanguage } from '../../shared/src/code-analysis';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const per = Number(arg('per') ?? 300);
const MAX_BYTES = 200_000;

/** Files under `roots` whose names match, sorted; `find` prunes nothing but size. */
function files(roots: string[], pattern: string, exclude?: RegExp): string[] {
  const found: string[] = [];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    const out = execFileSync('find', [root, '-type', 'f', '-name', pattern], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    for (const f of out.split('\n')) if (f && !exclude?.test(f)) found.push(f);
  }
  return found.sort();
}

function sample(list: string[]): string[] {
  const usable = list.filter((f) => {
    const size = statSync(f).size;
    return size > 200 && size < MAX_BYTES;
  });
  const step = Math.max(1, Math.floor(usable.length / per));
  return usable.filter((_, i) => i % step === 0).slice(0, per);
}

function jdkSources(): string[] {
  const zip = [
    '/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip',
    '/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip',
  ].find(existsSync);
  if (!zip) return [];
  const dir = mkdtempSync(join(tmpdir(), 'jdk-src-'));
  // unzip exits 11 when a pattern matches nothing (another JDK's module layout): what it did extract is used.
  try {
    execFileSync('unzip', [
      '-q',
      zip,
      'java.base/java/*',
      'java.net.http/*',
      'java.sql/*',
      'java.naming/*',
      '-d',
      dir,
    ]);
  } catch {}
  return files([dir], '*.java');
}

// Tests and demos hold secrets, URLs and insecure calls on purpose: left out, by folder and by file name.
const TESTS =
  /\/(tests?|testing|testdata|__tests__|spec|fixtures?|examples?|demos?)\/|\/test_[^/]*$|(Test|_test|\.test|\.spec)\.[a-z]+$/i;
const SDK = '/usr/lib/google-cloud-sdk';
const MODULES = join(import.meta.dirname, '../../node_modules/.pnpm');
const SOURCES: [CodeLanguage, () => string[]][] = [
  ['python', () => files(['/usr/lib/python3.11', `${SDK}/lib`], '*.py', TESTS)],
  ['php', () => files([SDK], '*.php', TESTS)],
  ['go', () => files([SDK, '/usr/share/doc', '/usr/lib/go'], '*.go', /_test\.go$|\/testdata\//)],
  ['java', jdkSources],
  ['javascript', () => files([MODULES], '*.js', /\.min\.js$|\/(dist|umd|esm|cjs|test|tests)\//)],
  ['typescript', () => files([MODULES], '*.ts', /\.d\.ts$|\/(test|tests)\//)],
  ['c', () => files([MODULES], 'scanner.c')],
];

type Counts = Record<string, Record<string, number>>;
const counts: Counts = {};
const examples: Record<string, string[]> = {};
const show = arg('show');
const summary: string[] = [];
for (const [language, list] of SOURCES) {
  const chosen = sample(list());
  let filesWith = 0;
  const byRule: Record<string, number> = {};
  for (const path of chosen) {
    const code = readFileSync(path, 'utf8');
    const result = await analyzeSource({
      code,
      language,
      filename: path,
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
    }).catch(() => undefined);
    if (!result) continue;
    if (result.issues.length > 0) filesWith += 1;
    for (const f of result.issues) {
      byRule[f.rule_id] = (byRule[f.rule_id] ?? 0) + 1;
      const key = `${language} ${f.rule_id}`;
      const list = examples[key] ?? [];
      examples[key] = list;
      if (list.length < 3 || f.rule_id === show) list.push(`${path}:${f.line} ${f.message.slice(0, 110)}`);
    }
  }
  counts[language] = byRule;
  summary.push(`${language}: ${chosen.length} files, ${filesWith} with a finding`);
}

const json = arg('json');
if (json) writeFileSync(json, JSON.stringify(counts, null, 1));
const old: Counts | undefined = arg('diff')
  ? JSON.parse(readFileSync(arg('diff') as string, 'utf8'))
  : undefined;
console.log(summary.join('\n'));
console.log('\n| language | rule | findings | before | examples |\n|---|---|---|---|---|');
for (const [language, byRule] of Object.entries(counts)) {
  for (const [rule, n] of Object.entries(byRule).sort((a, b) => b[1] - a[1])) {
    const before = old?.[language]?.[rule] ?? 0;
    if (old && n <= before) continue;
    const shown = examples[`${language} ${rule}`] ?? [];
    console.log(
      `| ${language} | ${rule} | ${n} | ${old ? before : ''} | ${shown.slice(0, rule === show ? 50 : 2).join('<br>')} |`,
    );
  }
}

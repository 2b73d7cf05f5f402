/**
 * Scoring the OWASP Benchmark the way its scorecard does: a case is flagged when the tool reports, in that case's
 * file, a finding whose CWE is the case's CWE. Per category TPR and FPR; the overall score averages TPR and FPR over
 * the categories and is their difference (Youden's index), in points.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { analyzeSource } from '../../server/src/modules/code-analysis/analyze';
import { analyzeProject } from '../../server/src/modules/code-analysis/project';
import { DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis/types';
import type { CodeLanguage, Finding } from '../../shared/src/code-analysis';

export interface BenchmarkCase {
  name: string;
  category: string;
  real: boolean;
  cwe: number;
  file: string;
}

export interface Benchmark {
  id: 'java' | 'python';
  language: CodeLanguage;
  dir: string;
  cases: BenchmarkCase[];
}

export interface CategoryScore {
  category: string;
  cwe: number;
  real: number;
  safe: number;
  tp: number;
  fp: number;
  tpr: number;
  fpr: number;
  score: number;
}

export interface Scorecard {
  categories: CategoryScore[];
  tpr: number;
  fpr: number;
  score: number;
}

export const CORPORA_DIR = resolve(import.meta.dirname, '../../../shared/corpora');

const LAYOUT = {
  java: { folder: 'owasp-benchmark-java', language: 'java', extension: '.java' },
  python: { folder: 'owasp-benchmark-python', language: 'python', extension: '.py' },
} as const;

/** The Benchmark's cases from its expected-results CSV, or undefined when the corpus is not on this machine. */
export function loadBenchmark(id: Benchmark['id'], corpora = CORPORA_DIR): Benchmark | undefined {
  const layout = LAYOUT[id];
  const dir = join(corpora, layout.folder);
  if (!existsSync(dir)) return undefined;
  const csv = readdirSync(dir).find((f) => f.startsWith('expectedresults') && f.endsWith('.csv'));
  if (!csv) return undefined;
  const cases: BenchmarkCase[] = [];
  for (const line of readFileSync(join(dir, csv), 'utf8').split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [name, category, real, cwe] = line.split(',').map((s) => s.trim());
    if (!name || !category || !real || !cwe) continue;
    cases.push({
      name,
      category,
      real: real === 'true',
      cwe: Number(cwe),
      file: join(dir, 'testcode', `${name}${layout.extension}`),
    });
  }
  return { id, language: layout.language, dir, cases };
}

/** Every n-th case (the first, the n+1-th, …): a fixed sample that keeps every category. */
export function everyNth(cases: BenchmarkCase[], n: number): BenchmarkCase[] {
  return n <= 1 ? cases : cases.filter((_, i) => i % n === 0);
}

/** The CWE numbers a file's findings carry (`CWE-89` → 89). */
export function cwesOf(findings: Finding[]): Set<number> {
  const out = new Set<number>();
  for (const f of findings) {
    const m = f.cwe ? /^CWE-(\d+)$/.exec(f.cwe) : null;
    if (m) out.add(Number(m[1]));
  }
  return out;
}

export function score(cases: BenchmarkCase[], flagged: (c: BenchmarkCase) => boolean): Scorecard {
  const byCategory = new Map<string, CategoryScore>();
  for (const c of cases) {
    let s = byCategory.get(c.category);
    if (!s) {
      s = { category: c.category, cwe: c.cwe, real: 0, safe: 0, tp: 0, fp: 0, tpr: 0, fpr: 0, score: 0 };
      byCategory.set(c.category, s);
    }
    const hit = flagged(c);
    if (c.real) {
      s.real += 1;
      if (hit) s.tp += 1;
    } else {
      s.safe += 1;
      if (hit) s.fp += 1;
    }
  }
  const categories = [...byCategory.values()].sort((a, b) => a.category.localeCompare(b.category));
  for (const s of categories) {
    s.tpr = s.real > 0 ? (100 * s.tp) / s.real : 0;
    s.fpr = s.safe > 0 ? (100 * s.fp) / s.safe : 0;
    s.score = s.tpr - s.fpr;
  }
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const tpr = mean(categories.map((s) => s.tpr));
  const fpr = mean(categories.map((s) => s.fpr));
  return { categories, tpr, fpr, score: tpr - fpr };
}

export function formatScorecard(title: string, card: Scorecard): string {
  const f = (v: number) => v.toFixed(1);
  const lines = [
    `${title}`,
    '| category | CWE | real | safe | TP | FP | TPR | FPR | score |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of card.categories) {
    lines.push(
      `| ${s.category} | ${s.cwe} | ${s.real} | ${s.safe} | ${s.tp} | ${s.fp} | ${f(s.tpr)} | ${f(s.fpr)} | ${f(s.score)} |`,
    );
  }
  lines.push(`| **overall** | | | | | | ${f(card.tpr)} | ${f(card.fpr)} | **${f(card.score)}** |`);
  return lines.join('\n');
}

/** The Benchmark's own helper modules (`helpers/`), as a project's other files: path relative to the corpus. */
export function loadHelpers(bench: Benchmark): { path: string; code: string }[] {
  const extension = LAYOUT[bench.id].extension;
  const out: { path: string; code: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith(extension))
        out.push({ path: full.slice(bench.dir.length + 1), code: readFileSync(full, 'utf8') });
    }
  };
  const root = join(bench.dir, 'helpers');
  if (existsSync(root)) visit(root);
  return out;
}

/**
 * Analyses one case's file as the endpoint would: alone, or with `helpers` as a project (`files`), keeping the
 * findings in the case's own file. The CWEs of its security findings decide.
 */
export async function analyzeCase(
  bench: Benchmark,
  c: BenchmarkCase,
  helpers?: { path: string; code: string }[],
): Promise<Finding[]> {
  const code = readFileSync(c.file, 'utf8');
  if (helpers) {
    const path = c.file.slice(bench.dir.length + 1);
    const result = await analyzeProject({
      files: [{ path, code }, ...helpers].map((f) => ({ ...f, language: bench.language })),
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
    });
    return result.issues.filter((i) => i.path === path);
  }
  const result = await analyzeSource({
    code,
    language: bench.language,
    filename: c.file,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
  });
  return result.issues;
}

/** Analyses the cases (one at a time, in this thread) and scores them. */
export async function runBenchmark(
  bench: Benchmark,
  cases: BenchmarkCase[],
  onCase?: (c: BenchmarkCase, findings: Finding[], flagged: boolean) => void,
  helpers?: { path: string; code: string }[],
): Promise<Scorecard> {
  const flagged = new Set<string>();
  for (const c of cases) {
    const findings = await analyzeCase(bench, c, helpers);
    const hit = cwesOf(findings).has(c.cwe);
    if (hit) flagged.add(c.name);
    onCase?.(c, findings, hit);
  }
  return score(cases, (c) => flagged.has(c.name));
}

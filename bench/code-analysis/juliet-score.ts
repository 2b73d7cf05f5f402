/**
 * Scoring the Juliet Test Suite for Java 1.3 as NIST's tool studies do (../shared/corpora/README.md): a case is
 * found when a finding of its CWE (or of a CWE whose family covers it) lies inside one of its `bad` methods or
 * classes, and a false alarm when such a finding lies inside a `good` one. Per CWE: TPR, FPR and their difference.
 * A CWE counts as covered at TPR ≥ 50 and FPR ≤ 10.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { analyzeSource } from '../../server/src/modules/code-analysis/analyze';
import { parseSource } from '../../server/src/modules/code-analysis/parsing/parse';
import type { SyntaxNode } from '../../server/src/modules/code-analysis/parsing/tree';
import { analyzeProject } from '../../server/src/modules/code-analysis/project';
import { DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis/types';
import type { Finding, ThreatModel } from '../../shared/src/code-analysis';
import { CORPORA_DIR } from './owasp-score';

export interface JulietCase {
  /** The files' shared stem, e.g. `CWE89_SQL_Injection__Environment_executeBatch_54`. */
  name: string;
  cwe: number;
  /** The case's own files, and the support files beside them in its CWE's folder (`…_Helper.java`). */
  files: string[];
}

export interface CweScore {
  cwe: number;
  folder: string;
  cases: number;
  found: number;
  falseAlarms: number;
  tpr: number;
  fpr: number;
  score: number;
  covered: boolean;
}

export interface JulietScorecard {
  cwes: CweScore[];
  /** Mean score over every CWE of the suite (an uncovered CWE with no findings scores 0). */
  meanAll: number;
  /** Mean score over the covered CWEs only. */
  meanCovered: number;
  covered: number;
  /** CWEs with any finding at all inside a bad or good region. */
  withFindings: number;
}

export const JULIET_DIR = join(CORPORA_DIR, 'juliet-java');

/** A finding of the key CWE also counts for these cases' CWEs (the README's families). */
const FAMILIES: Record<number, number[]> = {
  22: [23, 36],
  79: [80, 81, 83],
  190: [191],
  327: [328, 759, 760],
  330: [338],
};

export function countsFor(findingCwe: number, caseCwe: number): boolean {
  return findingCwe === caseCwe || (FAMILIES[findingCwe]?.includes(caseCwe) ?? false);
}

/** `…_54a.java`, `…_81_goodG2B.java` → the case stem `…_54`, `…_81`; support files (`…_Helper`) → undefined. */
export function caseStem(file: string): string | undefined {
  const m = /^(.*_\d+)(?:[a-z]|_bad|_base|_good\w*)?\.java$/.exec(basename(file));
  return m?.[1];
}

function javaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...javaFiles(full));
    else if (entry.name.endsWith('.java')) out.push(full);
  }
  return out;
}

/** Every CWE folder's cases, sorted by name; undefined when the corpus is not on this machine. */
export function loadJuliet(dir = JULIET_DIR): Map<string, JulietCase[]> | undefined {
  const root = join(dir, 'testcases');
  if (!existsSync(root)) return undefined;
  const out = new Map<string, JulietCase[]>();
  for (const folder of readdirSync(root).sort()) {
    const cwe = Number(/^CWE(\d+)_/.exec(folder)?.[1]);
    if (!Number.isFinite(cwe)) continue;
    const byStem = new Map<string, string[]>();
    const support: string[] = [];
    for (const file of javaFiles(join(root, folder)).sort()) {
      const stem = caseStem(file);
      if (!stem) support.push(file);
      else byStem.set(stem, [...(byStem.get(stem) ?? []), file]);
    }
    const cases = [...byStem.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, files]) => ({ name, cwe, files: [...files, ...support] }));
    out.set(folder, cases);
  }
  return out;
}

/** Up to `n` cases spread evenly over the sorted list, so that every source and flow variant is sampled. */
export function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const out: T[] = [];
  for (let i = 0; i < n; i += 1) {
    const item = items[Math.floor((i * items.length) / n)];
    if (item !== undefined) out.push(item);
  }
  return out;
}

type Region = 'bad' | 'good';
interface RegionSpan {
  region: Region;
  startRow: number;
  endRow: number;
  depth: number;
}

const regionOfMethod = (name: string): Region | undefined =>
  /^bad/.test(name) ? 'bad' : /^good/.test(name) ? 'good' : undefined;
const regionOfClass = (name: string): Region | undefined =>
  /_bad$/.test(name) ? 'bad' : /_good\w*$/.test(name) ? 'good' : undefined;

/** The bad and good methods and classes of a Java file, as 0-based row spans with their nesting depth. */
export async function regionsOf(code: string): Promise<RegionSpan[]> {
  const parsed = await parseSource(code, 'java');
  try {
    const spans: RegionSpan[] = [];
    const visit = (node: SyntaxNode, depth: number) => {
      const named = node.children.find((c) => c.field === 'name');
      const name = named ? code.slice(named.startIndex, named.endIndex) : '';
      const region =
        node.type === 'method_declaration' || node.type === 'constructor_declaration'
          ? regionOfMethod(name)
          : node.type === 'class_declaration'
            ? regionOfClass(name)
            : undefined;
      if (region) spans.push({ region, startRow: node.startRow, endRow: node.endRow, depth });
      for (const child of node.children) visit(child, depth + 1);
    };
    visit(parsed.root, 0);
    return spans;
  } finally {
    parsed.dispose();
  }
}

/** The innermost bad or good region holding a 1-based line. */
export function regionAt(spans: RegionSpan[], line: number): Region | undefined {
  let best: RegionSpan | undefined;
  for (const s of spans)
    if (s.startRow <= line - 1 && line - 1 <= s.endRow && (!best || s.depth > best.depth)) best = s;
  return best?.region;
}

export interface CaseOutcome {
  found: boolean;
  falseAlarm: boolean;
  /** Findings inside bad or good regions, whatever their CWE (for --verbose). */
  inRegions: { region: Region; finding: Finding; file: string }[];
}

/**
 * Analyses one case as the endpoint would (one file alone, several as a project with `files`) under a threat
 * model, and judges its findings by the region they lie in.
 */
export async function runCase(c: JulietCase, threatModel: ThreatModel): Promise<CaseOutcome> {
  const sources = c.files.map((f) => ({ path: basename(f), code: readFileSync(f, 'utf8') }));
  let issues: Finding[];
  if (sources.length === 1 && sources[0]) {
    const only = sources[0];
    const result = await analyzeSource({
      code: only.code,
      language: 'java',
      filename: only.path,
      analysisType: 'all',
      thresholds: DEFAULT_THRESHOLDS,
      threatModel,
    });
    issues = result.issues.map((i) => ({ ...i, path: only.path }));
  } else {
    const result = await analyzeProject({
      files: sources.map((f) => ({ ...f, language: 'java' as const })),
      analysisType: 'all',
      thresholds: DEFAULT_THRESHOLDS,
      threatModel,
    });
    issues = result.issues;
  }
  const regions = new Map<string, RegionSpan[]>();
  for (const f of sources) regions.set(f.path, await regionsOf(f.code));
  const outcome: CaseOutcome = { found: false, falseAlarm: false, inRegions: [] };
  for (const finding of issues) {
    const file = finding.path ?? '';
    const region = regionAt(regions.get(file) ?? [], finding.line);
    if (!region) continue;
    outcome.inRegions.push({ region, finding, file });
    const cwe = Number(/^CWE-(\d+)$/.exec(finding.cwe ?? '')?.[1]);
    if (!countsFor(cwe, c.cwe)) continue;
    if (region === 'bad') outcome.found = true;
    else outcome.falseAlarm = true;
  }
  return outcome;
}

export function scoreCwe(folder: string, cwe: number, outcomes: CaseOutcome[]): CweScore {
  const cases = outcomes.length;
  const found = outcomes.filter((o) => o.found).length;
  const falseAlarms = outcomes.filter((o) => o.falseAlarm).length;
  const tpr = cases > 0 ? (100 * found) / cases : 0;
  const fpr = cases > 0 ? (100 * falseAlarms) / cases : 0;
  return {
    cwe,
    folder,
    cases,
    found,
    falseAlarms,
    tpr,
    fpr,
    score: tpr - fpr,
    covered: tpr >= 50 && fpr <= 10,
  };
}

export function summarise(cwes: CweScore[], withFindings: number): JulietScorecard {
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const covered = cwes.filter((s) => s.covered);
  return {
    cwes,
    meanAll: mean(cwes.map((s) => s.score)),
    meanCovered: mean(covered.map((s) => s.score)),
    covered: covered.length,
    withFindings,
  };
}

export function formatJuliet(title: string, card: JulietScorecard): string {
  const f = (v: number) => v.toFixed(1);
  const lines = [
    title,
    '| CWE | cases | found | false alarms | TPR | FPR | score | covered |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const s of card.cwes) {
    if (s.found === 0 && s.falseAlarms === 0) continue;
    lines.push(
      `| ${s.folder} | ${s.cases} | ${s.found} | ${s.falseAlarms} | ${f(s.tpr)} | ${f(s.fpr)} | ${f(s.score)} | ${s.covered ? 'yes' : ''} |`,
    );
  }
  lines.push(
    '',
    `CWEs with a finding of theirs: ${card.withFindings} of ${card.cwes.length}; covered (TPR ≥ 50, FPR ≤ 10): ${card.covered}`,
    `mean score over all ${card.cwes.length} CWEs: ${f(card.meanAll)}; over the ${card.covered} covered: ${f(card.meanCovered)}`,
    `not covered: ${card.cwes
      .filter((s) => !s.covered)
      .map((s) => s.cwe)
      .join(' ')}`,
  );
  return lines.join('\n');
}

/** Runs up to `perCwe` cases of every CWE (all with Infinity) and scores them. */
export async function runJuliet(
  suite: Map<string, JulietCase[]>,
  options: {
    perCwe: number;
    /** Juliet's cases take files, sockets, databases and the environment as input: `all` by default. */
    threatModel?: ThreatModel;
    only?: (folder: string) => boolean;
    onCase?: (c: JulietCase, outcome: CaseOutcome) => void;
  },
): Promise<JulietScorecard> {
  const scores: CweScore[] = [];
  let withFindings = 0;
  for (const [folder, all] of suite) {
    if (options.only && !options.only(folder)) continue;
    const cases = Number.isFinite(options.perCwe) ? spread(all, options.perCwe) : all;
    const outcomes: CaseOutcome[] = [];
    for (const c of cases) {
      const outcome = await runCase(c, options.threatModel ?? 'all');
      outcomes.push(outcome);
      options.onCase?.(c, outcome);
    }
    const cwe = cases[0]?.cwe ?? 0;
    const score = scoreCwe(folder, cwe, outcomes);
    if (score.found > 0 || score.falseAlarms > 0) withFindings += 1;
    scores.push(score);
  }
  return summarise(scores, withFindings);
}

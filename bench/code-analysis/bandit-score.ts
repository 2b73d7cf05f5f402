/**
 * Scoring Bandit's examples (../shared/corpora/bandit): `tests/functional/test_functional.py` says how many issues
 * Bandit reports in each `examples/*.py` by severity. Compared on medium and high severity (Bandit also counts
 * low-severity advice such as `import subprocess`): an example matches when Tessera's security findings of medium
 * severity or more are within ±1 of Bandit's count. Findings on a line with Bandit's `# nosec` are not counted, as
 * Bandit does not count them; checks run with a narrowed test set (`with_test_set`) or `ignore_nosec` are left out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSource } from '../../server/src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis/types';
import type { Finding, FindingConfidence } from '../../shared/src/code-analysis';
import { CORPORA_DIR } from './owasp-score';

export interface BanditExample {
  file: string;
  path: string;
  /** Bandit's medium + high severity issues. */
  expected: number;
}

/** Each example's expected count, from the test that checks it with Bandit's full test set. */
export function loadBandit(corpora = CORPORA_DIR): BanditExample[] | undefined {
  const dir = join(corpora, 'bandit');
  const tests = join(dir, 'tests', 'functional', 'test_functional.py');
  if (!existsSync(tests)) return undefined;
  const source = readFileSync(tests, 'utf8');
  const out: BanditExample[] = [];
  const seen = new Set<string>();
  for (const body of source.split(/\n {4}def /).slice(1)) {
    if (body.includes('with_test_set') || body.includes('ignore_nosec=True')) continue;
    const severity = /"SEVERITY":\s*\{[^}]*"MEDIUM":\s*(\d+),\s*"HIGH":\s*(\d+)/.exec(body);
    const example = /check_example\(\s*"([^"]+)"/.exec(body);
    if (!severity || !example?.[1] || seen.has(example[1])) continue;
    const path = join(dir, 'examples', example[1]);
    if (!existsSync(path)) continue;
    seen.add(example[1]);
    out.push({ file: example[1], path, expected: Number(severity[1]) + Number(severity[2]) });
  }
  return out;
}

export async function analyzeExample(example: BanditExample): Promise<Finding[]> {
  const code = readFileSync(example.path, 'utf8');
  const result = await analyzeSource({
    code,
    language: 'python',
    filename: example.file,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  const lines = code.split('\n');
  return result.issues.filter((f) => !/#\s*nosec/i.test(lines[f.line - 1] ?? ''));
}

const RANK: Record<FindingConfidence, number> = { low: 0, medium: 1, high: 2 };
const SEVERE = new Set(['medium', 'high', 'critical']);

export interface ExampleScore {
  file: string;
  expected: number;
  ours: number;
  match: boolean;
}

export function scoreBandit(
  results: { example: BanditExample; findings: Finding[] }[],
  threshold: FindingConfidence,
): ExampleScore[] {
  return results.map(({ example, findings }) => {
    const ours = findings.filter(
      (f) => f.category === 'security' && SEVERE.has(f.severity) && RANK[f.confidence] >= RANK[threshold],
    ).length;
    return {
      file: example.file,
      expected: example.expected,
      ours,
      match: Math.abs(ours - example.expected) <= 1,
    };
  });
}

export function formatBandit(title: string, scores: ExampleScore[], perExample: boolean): string {
  const lines = [title];
  if (perExample) {
    lines.push('| example | Bandit (medium + high) | Tessera | within ±1 |', '|---|---|---|---|');
    for (const s of scores)
      lines.push(`| ${s.file} | ${s.expected} | ${s.ours} | ${s.match ? 'yes' : 'no'} |`);
  }
  const matched = scores.filter((s) => s.match).length;
  lines.push(
    `within ±1: ${matched} / ${scores.length} examples (${((100 * matched) / Math.max(1, scores.length)).toFixed(1)} %)`,
  );
  return lines.join('\n');
}

/**
 * Scoring gosec's own samples (../shared/corpora/gosec/testutils/g*_samples.go): each `CodeSample{code, errors,
 * config}` is a Go program (one or more files) and the number of findings gosec expects of that rule. A sample
 * expecting findings is found when Tessera reports any finding of the rule's CWE (or its family) in it; a sample
 * expecting none is a false alarm when Tessera does. Samples whose config is not gosec's default test gosec's
 * options, and samples with `#nosec` or `//gosec:disable` test its suppression comments: both are left out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeProject } from '../../server/src/modules/code-analysis/project';
import { DEFAULT_THRESHOLDS } from '../../server/src/modules/code-analysis/types';
import type { Finding, FindingConfidence } from '../../shared/src/code-analysis';
import { CORPORA_DIR } from './owasp-score';

export interface GosecSample {
  rule: string;
  files: string[];
  expected: number;
}

export interface GosecCorpus {
  samples: GosecSample[];
  skippedConfig: number;
  skippedNosec: number;
}

/**
 * gosec's rule → CWE table (its issue/issue.go `ruleToCWE`, with the taint rules' CWEs from RULES.md's
 * descriptions); rules without a CWE there are scored by the CWE the weakness has.
 */
export const GOSEC_CWE: Record<string, number> = {
  G101: 798,
  G102: 200,
  G103: 242,
  G104: 703,
  G106: 322,
  G107: 88,
  G108: 200,
  G109: 190,
  G110: 409,
  G111: 22,
  G112: 400,
  G113: 444,
  G114: 676,
  G115: 190,
  G116: 838,
  G117: 499,
  G118: 400,
  G119: 200,
  G120: 400,
  G121: 352,
  G122: 367,
  G123: 295,
  G124: 614,
  G201: 89,
  G202: 89,
  G203: 79,
  G204: 78,
  G301: 276,
  G302: 276,
  G303: 377,
  G304: 22,
  G305: 22,
  G306: 276,
  G307: 276,
  G401: 328,
  G402: 295,
  G403: 326,
  G404: 338,
  G405: 327,
  G406: 328,
  G407: 1204,
  G408: 287,
  G501: 327,
  G502: 327,
  G503: 327,
  G504: 327,
  G505: 327,
  G506: 327,
  G507: 327,
  G601: 118,
  G602: 118,
  G701: 89,
  G702: 78,
  G703: 22,
  G704: 918,
  G705: 79,
  G706: 117,
  G707: 93,
  G708: 1336,
  G709: 502,
  G710: 601,
};

/**
 * Rules that check more than one weakness under one id, and the other CWE they cover. gosec's G402 ("bad TLS
 * connection settings") maps to CWE-295 but checks both certificate verification (InsecureSkipVerify: CWE-295) and
 * protocol versions and cipher suites, which CWE, CodeQL (go/insecure-tls) and Semgrep file under CWE-327; a finding
 * of either counts for it. G107 (a URL from a variable given to an HTTP request) is server-side request forgery,
 * CWE-918 in CodeQL (go/request-forgery) and in gosec's own G704, not the CWE-88 of its table; G114 (serving without
 * timeouts) is resource exhaustion, CWE-400 (slowloris), rather than CWE-676. G106 (ssh.InsecureIgnoreHostKey) is
 * gosec's and CodeQL's CWE-322; Bandit's B507 and Tessera's one rule for every language's SSH clients file the
 * unchecked host key under CWE-295, improper certificate validation.
 */
export const GOSEC_ALSO: Record<string, number[]> = {
  G402: [327],
  G107: [918],
  G114: [400],
  G106: [295],
};

/** CWEs that name one weakness at different depths: a finding of any counts for the others. */
const FAMILIES: number[][] = [
  [326, 327, 328],
  [330, 338],
  [22, 23, 36],
  [276, 732],
  [118, 125, 129],
  [200, 1327],
];

export function cweMatches(rule: number, found: number): boolean {
  return rule === found || FAMILIES.some((f) => f.includes(rule) && f.includes(found));
}

/** Go raw strings (backquoted) from `at` on, as long as they are separated by commas and whitespace only. */
function rawStrings(text: string, at: number): { strings: string[]; end: number } {
  const strings: string[] = [];
  let i = at;
  for (;;) {
    while (/[\s,]/.test(text[i] ?? '')) i += 1;
    if (text[i] !== '`') break;
    const close = text.indexOf('`', i + 1);
    if (close === -1) break;
    strings.push(text.slice(i + 1, close));
    i = close + 1;
  }
  return { strings, end: i };
}

export function loadGosec(corpora = CORPORA_DIR): GosecCorpus | undefined {
  const dir = join(corpora, 'gosec', 'testutils');
  if (!existsSync(dir)) return undefined;
  const out: GosecCorpus = { samples: [], skippedConfig: 0, skippedNosec: 0 };
  for (const name of readdirSync(dir).sort()) {
    const m = /^g(\d+)_samples\.go$/.exec(name);
    if (!m) continue;
    const rule = `G${m[1]}`;
    const text = readFileSync(join(dir, name), 'utf8');
    let from = 0;
    for (;;) {
      const start = text.indexOf('[]string{', from);
      if (start === -1) break;
      const { strings, end } = rawStrings(text, start + '[]string{'.length);
      from = end;
      const tail = /^\s*}\s*,\s*(\d+)\s*,\s*([^\n]*)/.exec(text.slice(end));
      if (strings.length === 0 || !tail) continue;
      if (!/^gosec\.NewConfig\(\)\s*}?/.test(tail[2] ?? '')) {
        out.skippedConfig += 1;
        continue;
      }
      if (strings.some((s) => /#nosec|gosec:disable/.test(s))) {
        out.skippedNosec += 1;
        continue;
      }
      out.samples.push({ rule, files: strings, expected: Number(tail[1]) });
    }
  }
  return out;
}

/** One sample's findings, its files analysed together as a project (a Go package), at the lowest confidence. */
export async function analyzeSample(sample: GosecSample): Promise<Finding[]> {
  const result = await analyzeProject({
    files: sample.files.map((code, i) => ({ path: `sample${i}.go`, code, language: 'go' })),
    analysisType: 'all',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  return result.issues;
}

export interface RuleScore {
  rule: string;
  cwe: number;
  vulnerable: number;
  clean: number;
  found: number;
  flagged: number;
}

const RANK: Record<FindingConfidence, number> = { low: 0, medium: 1, high: 2 };

/** Per rule, at a confidence threshold: vulnerable samples found and clean samples flagged. */
export function scoreGosec(
  results: { sample: GosecSample; findings: Finding[] }[],
  threshold: FindingConfidence,
): RuleScore[] {
  const byRule = new Map<string, RuleScore>();
  for (const { sample, findings } of results) {
    const cwe = GOSEC_CWE[sample.rule] ?? 0;
    const s = byRule.get(sample.rule) ?? {
      rule: sample.rule,
      cwe,
      vulnerable: 0,
      clean: 0,
      found: 0,
      flagged: 0,
    };
    byRule.set(sample.rule, s);
    const hit = findings.some((f) => {
      const n = f.cwe ? Number(/^CWE-(\d+)$/.exec(f.cwe)?.[1]) : Number.NaN;
      const accepted = [cwe, ...(GOSEC_ALSO[sample.rule] ?? [])];
      return RANK[f.confidence] >= RANK[threshold] && accepted.some((c) => cweMatches(c, n));
    });
    if (sample.expected > 0) {
      s.vulnerable += 1;
      if (hit) s.found += 1;
    } else {
      s.clean += 1;
      if (hit) s.flagged += 1;
    }
  }
  return [...byRule.values()];
}

export function formatGosec(title: string, rules: RuleScore[], perRule: boolean): string {
  const pct = (a: number, b: number) => (b > 0 ? ((100 * a) / b).toFixed(1) : '–');
  const lines = [title];
  if (perRule) {
    lines.push('| rule | CWE | found / vulnerable | flagged / clean |', '|---|---|---|---|');
    for (const r of rules)
      lines.push(`| ${r.rule} | ${r.cwe} | ${r.found} / ${r.vulnerable} | ${r.flagged} / ${r.clean} |`);
  }
  const sum = (k: 'vulnerable' | 'clean' | 'found' | 'flagged') => rules.reduce((a, r) => a + r[k], 0);
  const withAny = rules.filter((r) => r.found > 0).length;
  lines.push(
    `found ${sum('found')} / ${sum('vulnerable')} (${pct(sum('found'), sum('vulnerable'))} %), flagged ${sum('flagged')} / ${sum('clean')} clean (${pct(sum('flagged'), sum('clean'))} %), ${withAny} of ${rules.length} rules find anything`,
  );
  return lines.join('\n');
}

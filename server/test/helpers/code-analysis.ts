/** Runs the analyser on a test fixture that must parse cleanly, and the case shape the rule tables share. */
import type { CodeLanguage, ThreatModel } from '@tessera/shared';
import { expect } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { type AnalysisResult, DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';

/** [rule, language, vulnerable (or buggy) code, safe (or fixed) code]: the first must fire the rule, the second must not. */
export type RuleCase = [string, CodeLanguage, string, string];

type FixtureAnalysis = 'bugs' | 'security';

function analyzeFixture(
  code: string,
  language: CodeLanguage,
  analysisType: FixtureAnalysis,
  threatModel: ThreatModel = 'web',
): Promise<AnalysisResult> {
  return analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType,
    thresholds: DEFAULT_THRESHOLDS,
    threatModel,
  });
}

/** The issues found in `code`. */
export async function findings(
  code: string,
  language: CodeLanguage,
  type: FixtureAnalysis = 'security',
  threatModel: ThreatModel = 'web',
): Promise<AnalysisResult['issues']> {
  const r = await analyzeFixture(code, language, type, threatModel);
  expect(r.parse_errors, `fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

/** The rule ids of the security issues found in `code`. */
export async function ruleIds(code: string, language: CodeLanguage): Promise<string[]> {
  const r = await analyzeFixture(code, language, 'security');
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues.map((i) => i.rule_id);
}

/** Java source: a class `name` with `members` and one method `run(params)` whose `body` starts on line 4. */
export function javaClass(name: string) {
  return (body: string, members = '', params = '') =>
    `class ${name} {\n  ${members}\n  void run(${params}) throws Exception {\n    ${body}\n  }\n}\n`;
}

/** The parameters of a servlet's handler method, for `javaClass(…)(body, '', SERVLET_PARAMS)`. */
export const SERVLET_PARAMS =
  'javax.servlet.http.HttpServletRequest request, javax.servlet.http.HttpServletResponse response';

/** [rule, CWE, language, vulnerable code, the line reported (1-based), fixed code]. */
export type PlacedCase = [string, string, CodeLanguage, string, number, string];

/** The vulnerable code fires `rule` with its CWE on the line given; the fixed code does not fire it. */
export async function expectPlacedCase(...[rule, cwe, language, vulnerable, line, fixed]: PlacedCase) {
  const kind = rule.startsWith('bug/') ? 'bugs' : 'security';
  const found = (await findings(vulnerable, language, kind)).filter((f) => f.rule_id === rule);
  expect(found.map((f) => [f.cwe, f.line])).toContainEqual([cwe, line]);
  const quiet = (await findings(fixed, language, kind)).filter((f) => f.rule_id === rule);
  expect(quiet).toEqual([]);
}

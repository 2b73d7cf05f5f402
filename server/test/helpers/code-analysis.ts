/** Runs the analyser on a test fixture that must parse cleanly, and the case shape the rule tables share. */
import type { CodeLanguage } from '@tessera/shared';
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
): Promise<AnalysisResult> {
  return analyzeSource({ code, language, filename: undefined, analysisType, thresholds: DEFAULT_THRESHOLDS });
}

/** The issues found in `code`. */
export async function findings(
  code: string,
  language: CodeLanguage,
  type: FixtureAnalysis = 'security',
): Promise<AnalysisResult['issues']> {
  const r = await analyzeFixture(code, language, type);
  expect(r.parse_errors, `fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

/** The rule ids of the security issues found in `code`. */
export async function ruleIds(code: string, language: CodeLanguage): Promise<string[]> {
  const r = await analyzeFixture(code, language, 'security');
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues.map((i) => i.rule_id);
}

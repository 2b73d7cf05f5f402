import {
  type AnalysisSummary,
  CONFIDENCE_LEVELS,
  DEFAULT_MIN_CONFIDENCE,
  type Finding,
  type FindingConfidence,
  type FunctionMetrics,
  type ThreatModel,
} from '@tessera/shared';
import { checkAnalysable } from './bounds';
import { complexityFindings } from './findings';
import { computeMetrics } from './metrics';
import { detectLanguage } from './parsing/detect';
import { type ParsedSource, parseSource } from './parsing/parse';
import { runRules } from './rules/engine';
import type { TaintProject } from './taint/project';
import type { AnalysisJob, AnalysisResult, ComplexityThresholds } from './types';

/** The whole analysis of one file; runs inside a worker thread. */
export async function analyzeSource(job: AnalysisJob): Promise<AnalysisResult> {
  const detected = job.language === undefined;
  const language = job.language ?? (await detectLanguage(job.code, job.filename));
  const parsed = await parseSource(job.code, language);
  try {
    checkAnalysable(parsed, language);
    return analyzeParsed(job, parsed, detected);
  } finally {
    parsed.dispose();
  }
}

/** What an analysis of parsed code needs besides the code; `project`: the other files a project's calls reach. */
export interface AnalysisOptions {
  analysisType: AnalysisJob['analysisType'];
  thresholds: ComplexityThresholds;
  minConfidence?: FindingConfidence | undefined;
  project?: TaintProject;
  threatModel?: ThreatModel | undefined;
}

export function analyzeParsed(job: AnalysisOptions, parsed: ParsedSource, detected: boolean): AnalysisResult {
  const { language } = parsed;
  const metrics = computeMetrics(parsed);
  const wants = (t: 'complexity' | 'bugs' | 'security') =>
    job.analysisType === 'all' || job.analysisType === t;
  const issues: Finding[] = [];
  if (wants('complexity')) issues.push(...complexityFindings(parsed, metrics.functions, job.thresholds));
  const categories = (['bugs', 'security'] as const)
    .filter(wants)
    .map((c) => (c === 'bugs' ? 'bug' : 'security'));
  if (categories.length > 0)
    issues.push(...runRules(parsed, categories, job.project, job.threatModel ?? 'web'));
  const floor = CONFIDENCE_LEVELS.indexOf(job.minConfidence ?? DEFAULT_MIN_CONFIDENCE);
  const reported = issues.filter((f) => CONFIDENCE_LEVELS.indexOf(f.confidence) >= floor);
  reported.sort((a, b) => a.line - b.line || a.column - b.column || a.rule_id.localeCompare(b.rule_id));
  return {
    language,
    language_detected: detected,
    analysis_type: job.analysisType,
    summary: summarize(
      reported,
      metrics.functions,
      metrics.file.lines.total,
      metrics.file.maintainability_index,
    ),
    metrics: metrics.file,
    functions: metrics.functions,
    issues: reported,
    parse_errors: parsed.parseErrors,
    partial: parsed.parseErrors.length > 0,
  };
}

export function summarize(
  issues: Finding[],
  functions: FunctionMetrics[],
  lines: number,
  mi: number,
): AnalysisSummary {
  const byCategory = { bug: 0, security: 0, complexity: 0 };
  const bySeverity = { info: 0, low: 0, medium: 0, high: 0, critical: 0 };
  for (const issue of issues) {
    byCategory[issue.category] += 1;
    bySeverity[issue.severity] += 1;
  }
  const cc = functions.map((f) => f.cyclomatic);
  return {
    issues: issues.length,
    by_category: byCategory,
    by_severity: bySeverity,
    lines,
    functions: functions.length,
    max_cyclomatic: cc.reduce((m, v) => Math.max(m, v), 0),
    avg_cyclomatic: cc.length > 0 ? Math.round((cc.reduce((a, b) => a + b, 0) / cc.length) * 100) / 100 : 0,
    max_cognitive: functions.reduce((m, f) => Math.max(m, f.cognitive), 0),
    maintainability_index: mi,
  };
}

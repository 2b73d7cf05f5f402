import type { FileAnalysis, Finding } from '@tessera/shared';
import { analyzeParsed, summarize } from './analyze';
import { checkAnalysable } from './bounds';
import { detectLanguage } from './parsing/detect';
import { type ParsedSource, parseSource } from './parsing/parse';
import { TaintProject } from './taint/project';
import type { ProjectJob, ProjectResult } from './types';

/**
 * A project's analysis, in one worker: every file is parsed and checked against the bounds first, then analysed
 * as a single file is, except that the dataflow sees the other files' functions (taint/project.ts).
 */
export async function analyzeProject(job: ProjectJob): Promise<ProjectResult> {
  const parsed: { path: string; parsed: ParsedSource; detected: boolean }[] = [];
  try {
    for (const [i, file] of job.files.entries()) {
      const language = file.language ?? (await detectLanguage(file.code, file.path));
      const tree = await parseSource(file.code, language);
      parsed.push({ path: file.path, parsed: tree, detected: file.language === undefined });
      checkAnalysable(tree, language, `\`files[${i}]\` (${file.path.slice(0, 200)})`);
    }
    // Only the dataflow of security findings looks across files.
    const crossFile = job.analysisType === 'all' || job.analysisType === 'security';
    const options = {
      analysisType: job.analysisType,
      thresholds: job.thresholds,
      ...(crossFile && { project: new TaintProject(parsed) }),
    };
    const files: FileAnalysis[] = [];
    const issues: Finding[] = [];
    for (const { path, parsed: tree, detected } of parsed) {
      const result = analyzeParsed(options, tree, detected);
      files.push({
        path,
        language: result.language,
        language_detected: result.language_detected,
        summary: result.summary,
        metrics: result.metrics,
        functions: result.functions,
        parse_errors: result.parse_errors,
        partial: result.partial,
      });
      for (const issue of result.issues) issues.push(withPath(issue, path));
    }
    return {
      analysis_type: job.analysisType,
      summary: projectSummary(files, issues),
      files,
      issues,
      partial: files.some((f) => f.partial),
    };
  } finally {
    for (const p of parsed) p.parsed.dispose();
  }
}

/** The finding's file; its trace's steps keep theirs only when the trace crosses files. */
function withPath(issue: Finding, path: string): Finding {
  const { trace, ...rest } = issue;
  if (!trace) return { ...rest, path };
  const crosses = trace.some((s) => s.path !== undefined && s.path !== path);
  return {
    ...rest,
    path,
    trace: crosses
      ? trace.map((s) => ({ ...s, path: s.path ?? path }))
      : trace.map(({ path: _path, ...step }) => step),
  };
}

function projectSummary(files: FileAnalysis[], issues: Finding[]): ProjectResult['summary'] {
  const lines = files.reduce((n, f) => n + f.summary.lines, 0);
  const mi =
    lines === 0
      ? 100
      : files.reduce((sum, f) => sum + f.summary.maintainability_index * f.summary.lines, 0) / lines;
  const summary = summarize(
    issues,
    files.flatMap((f) => f.functions),
    lines,
    Math.round(mi * 100) / 100,
  );
  return { ...summary, files: files.length };
}

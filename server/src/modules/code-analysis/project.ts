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
      minConfidence: job.minConfidence,
      threatModel: job.threatModel,
      ...(crossFile && { project: new TaintProject(parsed, job.threatModel ?? 'web') }),
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
    const shadowed = dropShadowedAcrossFiles(issues);
    const kept = options.project ? options.project.withoutConstantCallers(shadowed) : shadowed;
    if (kept.length < issues.length)
      for (const file of files) {
        const own = kept.filter((i) => i.path === file.path);
        const { lines, maintainability_index: mi } = file.summary;
        file.summary = { ...file.summary, ...summarize(own, file.functions, lines, mi) };
      }
    return {
      analysis_type: job.analysisType,
      summary: projectSummary(files, kept),
      files,
      issues: kept,
      partial: files.some((f) => f.partial),
    };
  } finally {
    for (const p of parsed) p.parsed.dispose();
  }
}

/**
 * A helper in one file reported at its own sink (or where it built the query) from a parameter of unknown origin
 * (medium), while a call in another file proves known input reaches that sink (high, its trace ending there, through
 * the build): the proven one stays.
 */
function dropShadowedAcrossFiles(issues: Finding[]): Finding[] {
  const key = (rule: string, path: string | undefined, line: number, column: number) =>
    `${rule}\u0000${path}\u0000${line}:${column}`;
  const proven = new Set<string>();
  for (const f of issues) {
    const last = f.trace?.[f.trace.length - 1];
    if (f.confidence !== 'high' || !last) continue;
    proven.add(key(f.rule_id, last.path ?? f.path, last.line, last.column));
    // The helper's statement that built the query (a SQL build site) lies on the proven path too.
    for (const step of f.trace ?? []) proven.add(key(f.rule_id, step.path ?? f.path, step.line, step.column));
  }
  return issues.filter(
    (f) => f.confidence === 'high' || !proven.has(key(f.rule_id, f.path, f.line, f.column)),
  );
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

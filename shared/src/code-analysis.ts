import { z } from 'zod';

/** Canonical language ids; aliases are resolved by the server (see CODE_LANGUAGE_ALIASES). */
export const CODE_LANGUAGES = [
  'python',
  'javascript',
  'typescript',
  'tsx',
  'java',
  'go',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'php',
  'rust',
  'kotlin',
  'swift',
  'scala',
  'bash',
] as const;
export const CodeLanguage = z.enum(CODE_LANGUAGES);
export type CodeLanguage = z.infer<typeof CodeLanguage>;

/** Common names for each language, lower-case. */
export const CODE_LANGUAGE_ALIASES: Record<string, CodeLanguage> = {
  py: 'python',
  python3: 'python',
  js: 'javascript',
  jsx: 'javascript',
  node: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ecmascript: 'javascript',
  ts: 'typescript',
  'c++': 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  h: 'c',
  'c#': 'csharp',
  cs: 'csharp',
  'c-sharp': 'csharp',
  golang: 'go',
  rb: 'ruby',
  rs: 'rust',
  kt: 'kotlin',
  kts: 'kotlin',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
};

export const ANALYSIS_TYPES = ['complexity', 'bugs', 'security', 'all'] as const;

/** Finding confidences, weakest first; `min_confidence` keeps a finding at or above the one it names. */
export const CONFIDENCE_LEVELS = ['low', 'medium', 'high'] as const;
/**
 * What CI gets unless it asks: proven flows and parameters built into queries or commands (medium) fail a build
 * for reasons a reviewer accepts; audit findings (low: a sink given text built from values of unknown origin) are
 * review hints, worth asking for but too often safe to block a merge on.
 */
export const DEFAULT_MIN_CONFIDENCE: (typeof CONFIDENCE_LEVELS)[number] = 'medium';

/** Response formats: Tessera's own JSON, or a SARIF 2.1.0 log (GitHub code scanning, IDEs). */
export const ANALYSIS_FORMATS = ['json', 'sarif'] as const;
export type AnalysisFormat = (typeof ANALYSIS_FORMATS)[number];
export const AnalysisType = z.enum(ANALYSIS_TYPES);
export type AnalysisType = z.infer<typeof AnalysisType>;

/**
 * Which inputs the security analysis treats as untrusted: `web` (the default) what a request brings (parameters,
 * headers, cookies, bodies) and what the catalogues always counted (command line, environment, stdin where a
 * language's catalogue lists them); `all` adds everything local too: files, sockets, database results,
 * configuration and properties files, HTTP client responses, environment and command line in every language.
 */
export const THREAT_MODELS = ['web', 'all'] as const;
export const ThreatModel = z.enum(THREAT_MODELS);
export type ThreatModel = z.infer<typeof ThreatModel>;

/** The most files one project analysis takes. */
export const CODE_ANALYSIS_MAX_FILES = 200;

/** One file of a project: its path names it in findings and is used to detect its language. */
export const CodeFile = z.object({
  path: z.string().describe("The file's path in the project (unique, non-empty), e.g. `app/views.py`."),
  code: z.string().describe("The file's source code (UTF-8)."),
  language: z
    .string()
    .optional()
    .describe("Language name or alias; when absent, inferred from the path's extension (then the content)."),
});
export type CodeFile = z.infer<typeof CodeFile>;

/**
 * The request body as sent: exactly one of `code` (one file) or `files` (a project analysed together);
 * `language` and `analysis_type` are checked by the server to list the supported values.
 */
export const CodeAnalyzeRequest = z.object({
  code: z
    .string()
    .optional()
    .describe(
      'The source code to analyse (UTF-8). Limited to CODE_ANALYSIS_MAX_BYTES, 512 KB by default. Exactly one of `code` and `files`.',
    ),
  files: z
    .array(CodeFile)
    .optional()
    .describe(
      'A project: up to 200 files analysed together, so that what a function defined in one file does (a sink it reaches, a sanitiser) applies where another file calls it. CODE_ANALYSIS_MAX_BYTES applies to all the files together. Exactly one of `code` and `files`.',
    ),
  language: z
    .string()
    .optional()
    .describe(
      'Language name or alias (python/py, javascript/js, typescript/ts, tsx, java, go, c, cpp/c++, csharp/c#, ruby, php, rust, kotlin, swift, scala, bash) of `code`. Detected when absent. With `files`, give each file its own `language`.',
    ),
  analysis_type: z.string().optional().describe('complexity, bugs, security or all (default).'),
  min_confidence: z
    .string()
    .optional()
    .describe(
      'The lowest confidence reported: high (proven flows from untrusted input, certain patterns), medium (default: adds parameters of unknown origin built into queries or commands, risky configurations) or low (adds audit findings: a dangerous sink given text built from values of unknown origin).',
    ),
  format: z
    .string()
    .optional()
    .describe(
      'json (default): the analysis object; sarif: a SARIF 2.1.0 log (rules with CWE tags and security-severity, results with locations, code flows and fingerprints) for GitHub code scanning and IDEs.',
    ),
  threat_model: z
    .string()
    .optional()
    .describe(
      'Which inputs are untrusted: `web` (default: request parameters, headers, cookies, bodies) or `all` (also files, sockets, database results, properties files, HTTP client responses, environment variables, command-line arguments and stdin).',
    ),
  filename: z
    .string()
    .max(512)
    .optional()
    .describe('Optional file name of `code`, used to detect the language.'),
});
export type CodeAnalyzeRequest = z.infer<typeof CodeAnalyzeRequest>;

export const FindingCategory = z.enum(['bug', 'security', 'complexity']);
export type FindingCategory = z.infer<typeof FindingCategory>;
export const FindingSeverity = z.enum(['info', 'low', 'medium', 'high', 'critical']);
export type FindingSeverity = z.infer<typeof FindingSeverity>;
export const FindingConfidence = z.enum(CONFIDENCE_LEVELS);
export type FindingConfidence = z.infer<typeof FindingConfidence>;

export const Halstead = z.object({
  distinct_operators: z.number().int(),
  distinct_operands: z.number().int(),
  total_operators: z.number().int(),
  total_operands: z.number().int(),
  vocabulary: z.number().int(),
  length: z.number().int(),
  volume: z.number(),
  difficulty: z.number(),
  effort: z.number(),
});
export type Halstead = z.infer<typeof Halstead>;

export const LinesOfCode = z.object({
  total: z.number().int(),
  source: z.number().int(),
  comment: z.number().int(),
  blank: z.number().int(),
});
export type LinesOfCode = z.infer<typeof LinesOfCode>;

export const FunctionMetrics = z.object({
  name: z.string(),
  kind: z.string().describe('function, method, arrow, lambda, constructor, closure…'),
  start_line: z.number().int(),
  end_line: z.number().int(),
  cyclomatic: z.number().int(),
  cognitive: z.number().int(),
  max_nesting: z.number().int(),
  parameters: z.number().int(),
  lines: LinesOfCode,
  halstead: Halstead,
  maintainability_index: z.number(),
});
export type FunctionMetrics = z.infer<typeof FunctionMetrics>;

export const FileMetrics = z.object({
  lines: LinesOfCode,
  functions: z.number().int(),
  cyclomatic_total: z.number().int().describe('1 + every decision point in the file.'),
  cognitive_total: z.number().int(),
  max_nesting: z.number().int(),
  halstead: Halstead,
  maintainability_index: z.number(),
});
export type FileMetrics = z.infer<typeof FileMetrics>;

export const TraceStep = z.object({
  line: z.number().int(),
  column: z.number().int(),
  end_line: z.number().int(),
  end_column: z.number().int(),
  note: z
    .string()
    .describe(
      'What happens to the value here: its source, an assignment, a call it passes through, the sink.',
    ),
  path: z
    .string()
    .optional()
    .describe("Project analyses: the step's file, on every step of a trace that crosses files."),
});
export type TraceStep = z.infer<typeof TraceStep>;

export const Finding = z.object({
  rule_id: z.string(),
  category: FindingCategory,
  severity: FindingSeverity,
  confidence: FindingConfidence,
  message: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  end_line: z.number().int(),
  end_column: z.number().int(),
  snippet: z.string(),
  cwe: z
    .string()
    .nullable()
    .describe(
      'CWE id (e.g. CWE-89) where the weakness has one: every security finding, most bug findings; null otherwise.',
    ),
  path: z.string().optional().describe('Project analyses: the file the finding is in.'),
  trace: z
    .array(TraceStep)
    .optional()
    .describe('For dataflow findings: the steps from the untrusted source to the sink, in order.'),
});
export type Finding = z.infer<typeof Finding>;

export const ParseError = z.object({
  message: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  end_line: z.number().int(),
  end_column: z.number().int(),
});
export type ParseError = z.infer<typeof ParseError>;

const countsBy = <T extends string>(keys: readonly T[]) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as Record<T, z.ZodNumber>);

export const AnalysisSummary = z.object({
  issues: z.number().int(),
  by_category: countsBy(FindingCategory.options),
  by_severity: countsBy(FindingSeverity.options),
  lines: z.number().int(),
  functions: z.number().int(),
  max_cyclomatic: z.number().int(),
  avg_cyclomatic: z.number(),
  max_cognitive: z.number().int(),
  maintainability_index: z.number(),
});
export type AnalysisSummary = z.infer<typeof AnalysisSummary>;

export const CodeAnalysis = z.object({
  id: z.string(),
  object: z.literal('code.analysis'),
  language: CodeLanguage,
  language_detected: z.boolean().describe('True when the language was detected rather than given.'),
  analysis_type: AnalysisType,
  summary: AnalysisSummary,
  metrics: FileMetrics,
  functions: z.array(FunctionMetrics),
  issues: z.array(Finding),
  parse_errors: z.array(ParseError),
  partial: z
    .boolean()
    .describe('True when the code did not fully parse: results cover what could be parsed.'),
});
export type CodeAnalysis = z.infer<typeof CodeAnalysis>;

/** One file's part of a project analysis: what a single-file analysis returns, but its findings. */
export const FileAnalysis = z.object({
  path: z.string(),
  language: CodeLanguage,
  language_detected: z
    .boolean()
    .describe('True when the language was inferred from the path or the content.'),
  summary: AnalysisSummary,
  metrics: FileMetrics,
  functions: z.array(FunctionMetrics),
  parse_errors: z.array(ParseError),
  partial: z.boolean(),
});
export type FileAnalysis = z.infer<typeof FileAnalysis>;

export const ProjectSummary = AnalysisSummary.extend({
  files: z.number().int(),
  maintainability_index: z.number().describe("The files' maintainability index, weighted by their lines."),
});
export type ProjectSummary = z.infer<typeof ProjectSummary>;

export const CodeProjectAnalysis = z.object({
  id: z.string(),
  object: z.literal('code.project_analysis'),
  analysis_type: AnalysisType,
  summary: ProjectSummary,
  files: z.array(FileAnalysis).describe('Per file, in the order sent: language, metrics, functions.'),
  issues: z
    .array(Finding)
    .describe("Every file's findings, each with its `path`; ordered by path as sent, then line."),
  partial: z.boolean().describe('True when some file did not fully parse.'),
});
export type CodeProjectAnalysis = z.infer<typeof CodeProjectAnalysis>;

/** What POST /api/code/analyze returns: `code.analysis` for `code`, `code.project_analysis` for `files`. */
export const CodeAnalyzeResponse = z.discriminatedUnion('object', [CodeAnalysis, CodeProjectAnalysis]);
export type CodeAnalyzeResponse = z.infer<typeof CodeAnalyzeResponse>;

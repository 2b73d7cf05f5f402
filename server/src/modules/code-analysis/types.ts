import type {
  AnalysisType,
  CodeAnalysis,
  CodeLanguage,
  CodeProjectAnalysis,
  FindingConfidence,
  ThreatModel,
} from '@tessera/shared';

/** Limits over which a function gets a `complexity` finding (the defaults). */
export interface ComplexityThresholds {
  cyclomatic: number;
  cognitive: number;
  nesting: number;
  length: number;
  parameters: number;
}

export const DEFAULT_THRESHOLDS: ComplexityThresholds = {
  cyclomatic: 10,
  cognitive: 15,
  nesting: 4,
  length: 60,
  parameters: 5,
};

/** What the worker receives: a validated request. */
export interface AnalysisJob {
  code: string;
  language: CodeLanguage | undefined;
  filename: string | undefined;
  analysisType: AnalysisType;
  thresholds: ComplexityThresholds;
  /** The lowest confidence kept; DEFAULT_MIN_CONFIDENCE when absent. */
  minConfidence?: FindingConfidence;
  /** Which inputs are untrusted; `web` when absent. */
  threatModel?: ThreatModel;
}

/** What the worker returns: the response without its id. */
export type AnalysisResult = Omit<CodeAnalysis, 'id' | 'object'>;

/** One file of a project job: `language` undefined when it is to be inferred from the path, then the content. */
export interface ProjectFile {
  path: string;
  code: string;
  language: CodeLanguage | undefined;
}

/** A project: files analysed together as one job, so a function's summary applies where another file calls it. */
export interface ProjectJob {
  files: ProjectFile[];
  analysisType: AnalysisType;
  thresholds: ComplexityThresholds;
  minConfidence?: FindingConfidence;
  threatModel?: ThreatModel;
}

export type ProjectResult = Omit<CodeProjectAnalysis, 'id' | 'object'>;

/** What a worker is sent and returns. */
export type WorkerJob = AnalysisJob | ProjectJob;
export type WorkerResult = AnalysisResult | ProjectResult;

export const isProjectJob = (job: WorkerJob): job is ProjectJob => 'files' in job;

import type { AnalysisType, CodeAnalysis, CodeLanguage } from '@tessera/shared';

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
}

/** What the worker returns: the response without its id. */
export type AnalysisResult = Omit<CodeAnalysis, 'id' | 'object'>;

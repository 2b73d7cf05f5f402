import type { AnalysisJob, AnalysisResult } from './types';

export interface WorkerRequest {
  id: number;
  job: AnalysisJob;
}

export type WorkerReply =
  | { id: number; ok: true; result: AnalysisResult }
  /** `tooComplex`: the input is over the analysis's bounds (analyze.ts), a client error, not a failure. */
  | { id: number; ok: false; message: string; tooComplex?: boolean };

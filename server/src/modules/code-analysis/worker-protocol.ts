import type { AnalysisJob, AnalysisResult } from './types';

export interface WorkerRequest {
  id: number;
  job: AnalysisJob;
}

export type WorkerReply =
  | { id: number; ok: true; result: AnalysisResult }
  | { id: number; ok: false; message: string };

import type { WorkerJob, WorkerResult } from './types';

export interface WorkerRequest {
  id: number;
  job: WorkerJob;
}

export type WorkerReply =
  | { id: number; ok: true; result: WorkerResult }
  /** `tooComplex`: the input is over the analysis's bounds (analyze.ts), a client error, not a failure. */
  | { id: number; ok: false; message: string; tooComplex?: boolean };

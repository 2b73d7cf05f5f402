import { serveRequests } from '../../lib/thread-serve';
import { analyzeSource } from './analyze';
import { analyzeProject } from './project';
import { isProjectJob, type WorkerJob, type WorkerResult } from './types';

/**
 * A code-analysis worker thread (pool.ts): runs one job at a time. An input over the analysis's bounds throws
 * AnalysisTooComplex (bounds.ts), which the pool answers as the client's error, not a failure; the thread is
 * ready once the analyzers (and their grammars) are loaded.
 */
serveRequests<WorkerJob, WorkerResult>((job) =>
  isProjectJob(job) ? analyzeProject(job) : analyzeSource(job),
);

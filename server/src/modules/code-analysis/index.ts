import type { CodeAnalysis, CodeProjectAnalysis, SarifLog } from '@tessera/shared';
import { randomBase62 } from '../../lib/ids';
import type { Logger } from '../../logger';
import { AnalysisPool } from './pool';
import { parseAnalyzeRequest } from './request';
import { toSarif } from './sarif';
import type { ComplexityThresholds } from './types';
import { DEFAULT_THRESHOLDS, isProjectJob } from './types';

export { resolveLanguage, supportedLanguageNames } from './languages';
export type {
  AnalysisJob,
  AnalysisResult,
  ComplexityThresholds,
  ProjectJob,
  ProjectResult,
} from './types';
export { AnalysisPool, DEFAULT_THRESHOLDS };

export interface CodeAnalysisConfig {
  maxBytes: number;
  timeoutMs: number;
  workers: number;
  maxQueue: number;
  /** The most workers, and waiting analyses, one account may hold (pool.ts). */
  workersPerAccount?: number | undefined;
  queuePerAccount?: number | undefined;
  thresholds?: ComplexityThresholds;
}

/** The module's public surface: validates a request and runs it in the worker pool. */
export class CodeAnalyzer {
  readonly pool: AnalysisPool;

  constructor(
    private readonly config: CodeAnalysisConfig,
    logger: Logger,
  ) {
    this.pool = new AnalysisPool({
      size: config.workers,
      timeoutMs: config.timeoutMs,
      maxQueue: config.maxQueue,
      logger,
      ...(config.workersPerAccount !== undefined && { workersPerAccount: config.workersPerAccount }),
      ...(config.queuePerAccount !== undefined && { queuePerAccount: config.queuePerAccount }),
    });
  }

  /**
   * Analyses a request of `accountId`'s, one file or a project (one job either way), which shares the workers
   * fairly with the other accounts (pool.ts).
   */
  async analyze(body: unknown, accountId: string): Promise<CodeAnalysis | CodeProjectAnalysis | SarifLog> {
    const { job, format } = parseAnalyzeRequest(
      body,
      this.config.maxBytes,
      this.config.thresholds ?? DEFAULT_THRESHOLDS,
    );
    const id = `analysis_${randomBase62(24)}`;
    if (isProjectJob(job)) {
      const analysis: CodeProjectAnalysis = {
        id,
        object: 'code.project_analysis',
        ...(await this.pool.run(job, accountId)),
      };
      return format === 'sarif' ? toSarif(analysis, '') : analysis;
    }
    const analysis: CodeAnalysis = { id, object: 'code.analysis', ...(await this.pool.run(job, accountId)) };
    // A single file's results need a file to point at: its name when the request gave one.
    return format === 'sarif' ? toSarif(analysis, job.filename ?? 'code') : analysis;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

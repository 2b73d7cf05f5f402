import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger';
import { type AnalysisJob, AnalysisPool, DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis';

const pool = new AnalysisPool({ size: 1, timeoutMs: 20_000, maxQueue: 2, logger: createLogger('silent') });
afterAll(() => pool.close());

const job = (code: string): AnalysisJob => ({
  code,
  language: 'javascript',
  filename: undefined,
  analysisType: 'all',
  thresholds: DEFAULT_THRESHOLDS,
});

describe('AnalysisPool', () => {
  it('terminates a worker over its time limit and serves the next job with a fresh one', async () => {
    // ~1.5 MB of code cannot be analysed in 1 ms: the job fails, not hangs, and the input over the limit is the
    // client's error.
    const big = 'function f(a) { if (a && b || c) { return a ? 1 : 2; } }\n'.repeat(25_000);
    await expect(pool.run(job(big), 'account', 1)).rejects.toMatchObject({
      kind: 'invalid_request',
      code: 'analysis_too_complex',
      param: 'code',
    });
    expect(pool.workerCount).toBe(0);
    const result = await pool.run(job('function g(x) { return x || 1; }'));
    expect(result.functions).toMatchObject([{ name: 'g', cyclomatic: 2 }]);
    expect(pool.workerCount).toBe(1);
  });

  it('runs a project as one job under one time limit, and names the files when it is over it', async () => {
    const files = Array.from({ length: 20 }, (_, i) => ({
      path: `m${i}.js`,
      code: 'function f(a) { if (a && b || c) { return a ? 1 : 2; } }\n'.repeat(2_000),
      language: undefined,
    }));
    const project = { files, analysisType: 'all' as const, thresholds: DEFAULT_THRESHOLDS };
    const err = await pool.run(project, 'account', 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'invalid_request', code: 'analysis_too_complex', param: 'files' });
    expect((err as Error).message).toContain("the project's 20 files");
    const small = await pool.run({
      ...project,
      files: files.slice(0, 2).map((f) => ({ ...f, code: 'let x = 1;' })),
    });
    expect(small.files.map((f) => [f.path, f.language])).toEqual([
      ['m0.js', 'javascript'],
      ['m1.js', 'javascript'],
    ]);
  });

  it('refuses work beyond the queue bound with a 503-kind error instead of queueing for ever', async () => {
    const jobs = Array.from({ length: 4 }, () => pool.run(job('let x = 1;')));
    const settled = await Promise.allSettled(jobs);
    const rejected = settled.filter((s) => s.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
      kind: 'unavailable',
      code: 'analysis_busy',
    });
    expect(settled.some((s) => s.status === 'fulfilled')).toBe(true);
  });
});

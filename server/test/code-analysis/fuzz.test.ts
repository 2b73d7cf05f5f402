import { readFileSync } from 'node:fs';
import { CODE_LANGUAGES, CodeAnalysis } from '@tessera/shared';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger';
import { type AnalysisJob, AnalysisPool, DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis';

/** One pool for the file: every input goes through a real worker, as in production. */
const pool = new AnalysisPool({ size: 1, timeoutMs: 20_000, maxQueue: 8, logger: createLogger('silent') });
afterAll(() => pool.close());

const SEEDS = ['SumOfPrimes.java', 'chains.js', 'grades.py', 'loop.go'].map((f) =>
  readFileSync(new URL(`../fixtures/code/${f}`, import.meta.url), 'utf8'),
);
const TOKENS = [
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  'if',
  'else',
  'for',
  'while',
  'def',
  'function',
  'class',
  ':',
  ';',
  '\n',
  '  ',
  '"',
  "'",
  '`',
  '/*',
  '*/',
  '#',
  '//',
  '=>',
  '->',
  '&&',
  '||',
  'eval(',
  'request.args',
  '$_GET',
  '<?php',
  'end',
  'fi',
  'case',
  '\\',
  '\u0000',
  'é',
  '😀',
];

const job = (code: string, language: AnalysisJob['language']): AnalysisJob => ({
  code,
  language,
  filename: undefined,
  analysisType: 'all',
  thresholds: DEFAULT_THRESHOLDS,
});

const code = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 300 }).map((t) => t.join('')),
  fc
    .tuple(fc.constantFrom(...SEEDS), fc.nat(), fc.nat())
    .map(([s, a, b]) => s.slice(Math.min(a, b) % s.length, Math.max(a, b) % (s.length + 1))),
  fc.nat({ max: 3000 }).map((n) => '('.repeat(n) + ')'.repeat(n >> 1)),
);

describe('fuzz: no input crashes or hangs the analysis worker', () => {
  it('random, token soup, truncated and deeply nested inputs in every language', async () => {
    await fc.assert(
      fc.asyncProperty(code, fc.constantFrom(...CODE_LANGUAGES, undefined), async (source, language) => {
        // Input over the analysis's bounds (deep nesting, mostly unparsable) is refused, never a crash or a hang.
        const result = await pool.run(job(source, language)).catch((err: unknown) => {
          expect(err).toMatchObject({ kind: 'invalid_request', code: 'analysis_too_complex' });
          return undefined;
        });
        if (!result) return;
        const parsed = CodeAnalysis.safeParse({ id: 'x', object: 'code.analysis', ...result });
        expect(parsed.success).toBe(true);
        if (result.parse_errors.length > 0) expect(result.partial).toBe(true);
        for (const f of result.functions) expect(f.end_line).toBeGreaterThanOrEqual(f.start_line);
      }),
      { numRuns: 80, seed: 7 },
    );
    expect(pool.workerCount).toBe(1);
  }, 120_000);
});

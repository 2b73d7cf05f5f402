import { readFileSync } from 'node:fs';
import type { CodeLanguage, FunctionMetrics } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/code/${name}`, import.meta.url), 'utf8');

async function functionsOf(
  code: string,
  language: CodeLanguage,
): Promise<Record<string, Partial<FunctionMetrics>>> {
  const result = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'complexity',
    thresholds: DEFAULT_THRESHOLDS,
  });
  expect(result.parse_errors).toEqual([]);
  const out: Record<string, Partial<FunctionMetrics>> = {};
  for (const f of result.functions) {
    out[f.name] = {
      cyclomatic: f.cyclomatic,
      cognitive: f.cognitive,
      max_nesting: f.max_nesting,
      parameters: f.parameters,
    };
  }
  return out;
}

describe('metrics on hand-checked fixtures', () => {
  it('Java: the examples of SonarSource’s cognitive complexity white paper', async () => {
    const fns = await functionsOf(fixture('SumOfPrimes.java'), 'java');
    expect(fns.sumOfPrimes).toEqual({ cyclomatic: 4, cognitive: 7, max_nesting: 3, parameters: 1 });
    expect(fns.getWords).toEqual({ cyclomatic: 4, cognitive: 1, max_nesting: 1, parameters: 1 });
    expect(fns.myMethod).toEqual({ cyclomatic: 6, cognitive: 9, max_nesting: 3, parameters: 0 });
    expect(fns.myMethod2).toMatchObject({ cyclomatic: 1, cognitive: 2 });
    expect(fns.r).toMatchObject({ cyclomatic: 2, cognitive: 1 });
    expect(fns.mixed).toEqual({ cyclomatic: 7, cognitive: 4, max_nesting: 1, parameters: 6 });
  });

  it('JavaScript: else-if chains, recursion, nested arrows, ESLint’s default/optional/logical-assignment points', async () => {
    const fns = await functionsOf(fixture('chains.js'), 'javascript');
    expect(fns.chain).toEqual({ cyclomatic: 4, cognitive: 5, max_nesting: 2, parameters: 1 });
    expect(fns.fact).toMatchObject({ cyclomatic: 3, cognitive: 3 });
    expect(fns.outer).toMatchObject({ cyclomatic: 1, cognitive: 2 });
    expect(fns['<anonymous>']).toMatchObject({ cyclomatic: 2, cognitive: 1 });
    expect(fns.defaults).toMatchObject({ cyclomatic: 5, parameters: 2 });
  });

  it('Python: boolean sequences, elif/else, comprehensions, decorators, async, keyword-only parameters', async () => {
    const fns = await functionsOf(fixture('grades.py'), 'python');
    expect(fns.grade).toEqual({ cyclomatic: 8, cognitive: 7, max_nesting: 2, parameters: 3 });
    expect(fns.fact).toMatchObject({ cyclomatic: 2, cognitive: 2 });
    expect(fns.area).toMatchObject({ cyclomatic: 2, cognitive: 1, parameters: 1 });
    expect(fns.load).toMatchObject({ cyclomatic: 2, cognitive: 1, parameters: 3 });
  });

  it('Go: for, else, switch cases and short-circuit operators', async () => {
    const fns = await functionsOf(fixture('loop.go'), 'go');
    expect(fns.f).toEqual({ cyclomatic: 5, cognitive: 6, max_nesting: 2, parameters: 1 });
  });

  it('every language: functions are found and counted', async () => {
    const samples: [CodeLanguage, string, string, number][] = [
      ['typescript', 'function f(a: number, b = 2): number { return a > 0 && b > 0 ? 1 : 0; }', 'f', 4],
      ['tsx', 'const C = (p: { x: number }) => p.x ? <b>{p.x}</b> : null;', 'C', 2],
      ['c', 'int f(int a) { if (a > 0 || a < -5) return 1; while (a--) {} return 0; }', 'f', 4],
      ['cpp', 'int S::f(int a) { for (auto x : v) { if (x) return 1; } return a ? 2 : 3; }', 'S::f', 4],
      [
        'csharp',
        'class A { int F(int a) { foreach (var x in xs) { if (x > a && a > 0) return 1; } return 0; } }',
        'F',
        4,
      ],
      ['ruby', 'def f(a)\n  return 1 if a\n  a.each { |x| puts x }\n  unless a then 2 end\nend\n', 'f', 3],
      [
        'php',
        '<?php function f($a) { if ($a && $b) { return 1; } elseif ($a) { return 2; } return 0; }',
        'f',
        4,
      ],
      ['rust', 'fn f(a: i32) -> i32 { match a { 1 => 1, 2 => 2, _ => 0 } }', 'f', 3],
      [
        'kotlin',
        'fun f(a: Int): Int { if (a > 0 && a < 9) return 1; return when (a) { 1 -> 2; else -> 3 } }',
        'f',
        4,
      ],
      [
        'swift',
        'func f(a: Int) -> Int { guard a > 0 else { return 0 }; for x in xs { if x > a { return 1 } }; return 2 }',
        'f',
        4,
      ],
      [
        'scala',
        'object O { def f(a: Int): Int = if (a > 0 && a < 5) 1 else a match { case 1 => 2; case _ => 3 } }',
        'f',
        5,
      ],
      [
        'bash',
        'f() {\n  if [ -z "$1" ] && [ -n "$2" ]; then echo a; fi\n  for x in 1 2; do echo $x; done\n}\n',
        'f',
        4,
      ],
    ];
    for (const [language, code, name, cyclomatic] of samples) {
      const fns = await functionsOf(code, language);
      expect({ language, name, cc: fns[name]?.cyclomatic }).toEqual({ language, name, cc: cyclomatic });
    }
  });

  it('lines, Halstead and maintainability index of a file', async () => {
    const code = '# header\n\ndef add(a, b):\n    """Sum."""\n    return a + b  # plus\n';
    const result = await analyzeSource({
      code,
      language: 'python',
      filename: undefined,
      analysisType: 'complexity',
      thresholds: DEFAULT_THRESHOLDS,
    });
    expect(result.metrics.lines).toEqual({ total: 5, source: 3, comment: 2, blank: 1 });
    const h = result.functions[0]?.halstead;
    // operators (closing brackets and separators stand with their opener): def ( : return + → 5;
    // operands: add a b "Sum." a b → 4 distinct, 6 total. Volume = N log2 n = 11 log2 9.
    expect(h).toMatchObject({
      distinct_operators: 5,
      total_operators: 5,
      distinct_operands: 4,
      total_operands: 6,
    });
    expect(h?.volume).toBeCloseTo(11 * Math.log2(9), 1);
    expect(result.metrics.maintainability_index).toBeGreaterThan(50);
    expect(result.metrics.maintainability_index).toBeLessThanOrEqual(100);
  });
});

describe('language detection', () => {
  it('recognises a 60-line file of every language without being told', async () => {
    const { detectLanguage } = await import('../../src/modules/code-analysis/parsing/detect');
    const { generateFile } = await import('../../../bench/code-analysis/generate');
    const { CODE_LANGUAGES } = await import('@tessera/shared');
    const detected: Record<string, string> = {};
    for (const language of CODE_LANGUAGES)
      detected[language] = await detectLanguage(generateFile(language, 60));
    expect(detected).toEqual(Object.fromEntries(CODE_LANGUAGES.map((l) => [l, l])));
    expect(await detectLanguage(fixture('SumOfPrimes.java'))).toBe('java');
    expect(await detectLanguage(fixture('grades.py'))).toBe('python');
    expect(await detectLanguage('x', 'main.rs')).toBe('rust');
    expect(await detectLanguage('#!/usr/bin/env bash\necho hi\n')).toBe('bash');
  });
});

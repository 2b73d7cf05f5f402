import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { cyclomatic } from '../../src/modules/code-analysis/metrics/cyclomatic';
import { findFunctions } from '../../src/modules/code-analysis/metrics/functions';
import { PROFILES } from '../../src/modules/code-analysis/metrics/profiles';
import { parseSource } from '../../src/modules/code-analysis/parsing/parse';
import type { SyntaxNode } from '../../src/modules/code-analysis/parsing/tree';

/**
 * Oracle: ESLint's own `complexity` rule on real JavaScript from node_modules must give the same cyclomatic
 * complexity as ours for ≥ 99.5% of the functions. Functions are matched by the position ESLint reports
 * (the function's "head": the property or class field it is the value of, else the `=>` of an arrow, else the function).
 */
const require = createRequire(import.meta.url);
const PACKAGES = [
  'express',
  'undici',
  'pino',
  'zod',
  'drizzle-orm',
  'graphql',
  'postgres',
  'ioredis',
  'helmet',
  'eslint',
  'fast-check',
];
const MAX_FILES = 160;

function corpus(): string[] {
  const files: string[] = [];
  const visit = (dir: string, depth: number): void => {
    if (depth > 4 || files.length >= MAX_FILES * 4) return;
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) visit(path, depth + 1);
      else if (/\.(c|m)?js$/.test(name) && !/\.min\.js$/.test(name) && stat.size > 500 && stat.size < 60_000)
        files.push(path);
    }
  };
  for (const pkg of PACKAGES) {
    try {
      visit(dirname(require.resolve(`${pkg}/package.json`)), 0);
    } catch {
      // a package that hides its package.json is simply not in the corpus
    }
  }
  // A spread over packages, stable across runs.
  const step = Math.max(1, Math.floor(files.length / MAX_FILES));
  return files.filter((_, i) => i % step === 0).slice(0, MAX_FILES);
}

function headOf(node: SyntaxNode): { line: number; column: number } {
  let at: SyntaxNode = node;
  if (node.parent && ['pair', 'field_definition'].includes(node.parent.type)) at = node.parent;
  else if (node.type === 'arrow_function') at = node.children.find((c) => c.type === '=>') ?? node;
  return { line: at.startRow + 1, column: at.startCol + 1 };
}

describe('cyclomatic complexity agrees with ESLint', () => {
  it('on a corpus of real JavaScript from node_modules', async () => {
    const linter = new Linter({ configType: 'flat' });
    let compared = 0;
    let agreed = 0;
    let oursOnly = 0;
    const disagreements: string[] = [];
    for (const file of corpus()) {
      const code = readFileSync(file, 'utf8');
      if (code.includes('\r')) continue; // keep line/column arithmetic simple
      let messages: Linter.LintMessage[] = [];
      for (const sourceType of ['module', 'commonjs'] as const) {
        messages = linter.verify(code, {
          languageOptions: { ecmaVersion: 'latest', sourceType },
          rules: { complexity: ['error', 0] },
        });
        if (!messages.some((m) => m.fatal)) break;
      }
      if (messages.some((m) => m.fatal)) continue;
      const parsed = await parseSource(code, 'javascript');
      try {
        if (parsed.parseErrors.length > 0) continue;
        const ours = new Map<string, number>();
        for (const fn of findFunctions(parsed.root, PROFILES.javascript, code)) {
          const head = headOf(fn.node);
          ours.set(`${head.line}:${head.column}`, cyclomatic(fn.node, PROFILES.javascript, code));
        }
        const seen = new Set<string>();
        for (const m of messages) {
          if (m.ruleId !== 'complexity' || /class (field initializer|static block)/i.test(m.message))
            continue;
          seen.add(`${m.line}:${m.column}`);
          const theirs = Number(/complexity of (\d+)/.exec(m.message)?.[1]);
          const mine = ours.get(`${m.line}:${m.column}`);
          compared += 1;
          if (mine === theirs) agreed += 1;
          else if (disagreements.length < 15)
            disagreements.push(`${file}:${m.line}:${m.column} eslint=${theirs} ours=${mine}`);
        }
        for (const key of ours.keys()) if (!seen.has(key)) oursOnly += 1;
      } finally {
        parsed.dispose();
      }
    }
    const agreement = (agreed / compared) * 100;
    console.log(
      `ESLint oracle: ${agreed}/${compared} functions agree (${agreement.toFixed(2)}%); ${oursOnly} functions of ours unmatched\n${disagreements.join('\n')}`,
    );
    expect(compared).toBeGreaterThan(1000);
    expect(agreement).toBeGreaterThanOrEqual(99.5);
    expect(oursOnly / compared).toBeLessThan(0.005);
  }, 120_000);
});

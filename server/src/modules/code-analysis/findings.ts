import type { Finding, FunctionMetrics } from '@tessera/shared';
import type { ParsedSource } from './parsing/parse';
import type { ComplexityThresholds } from './types';

/** 1-based location and snippet of a span of the source. */
export function locate(
  parsed: ParsedSource,
  node: {
    startRow: number;
    startCol: number;
    endRow: number;
    endCol: number;
    startIndex: number;
    endIndex: number;
  },
): Pick<Finding, 'line' | 'column' | 'end_line' | 'end_column' | 'snippet'> {
  const raw = parsed.source.slice(node.startIndex, node.endIndex);
  const firstLine = raw.split('\n', 1)[0] ?? '';
  return {
    line: node.startRow + 1,
    column: node.startCol + 1,
    end_line: node.endRow + 1,
    end_column: node.endCol + 1,
    snippet: firstLine.length > 200 ? `${firstLine.slice(0, 200)}…` : firstLine,
  };
}

interface Check {
  rule: string;
  value: (f: FunctionMetrics) => number;
  limit: (t: ComplexityThresholds) => number;
  message: (f: FunctionMetrics, value: number, limit: number) => string;
}

const CHECKS: Check[] = [
  {
    rule: 'complexity/cyclomatic',
    value: (f) => f.cyclomatic,
    limit: (t) => t.cyclomatic,
    message: (f, v, l) =>
      `Function '${f.name}' has cyclomatic complexity ${v} (limit ${l}); split it into smaller functions or replace branching with lookup tables.`,
  },
  {
    rule: 'complexity/cognitive',
    value: (f) => f.cognitive,
    limit: (t) => t.cognitive,
    message: (f, v, l) =>
      `Function '${f.name}' has cognitive complexity ${v} (limit ${l}); flatten nesting with early returns and extract nested blocks.`,
  },
  {
    rule: 'complexity/nesting',
    value: (f) => f.max_nesting,
    limit: (t) => t.nesting,
    message: (f, v, l) =>
      `Function '${f.name}' nests control structures ${v} deep (limit ${l}); use guard clauses or extract the inner blocks.`,
  },
  {
    rule: 'complexity/length',
    value: (f) => f.lines.source,
    limit: (t) => t.length,
    message: (f, v, l) =>
      `Function '${f.name}' has ${v} lines of code (limit ${l}); split it by responsibility.`,
  },
  {
    rule: 'complexity/parameters',
    value: (f) => f.parameters,
    limit: (t) => t.parameters,
    message: (f, v, l) =>
      `Function '${f.name}' takes ${v} parameters (limit ${l}); group related parameters into an object.`,
  },
];

export function complexityFindings(
  parsed: ParsedSource,
  functions: FunctionMetrics[],
  t: ComplexityThresholds,
): Finding[] {
  const lines = parsed.source.split('\n');
  const out: Finding[] = [];
  for (const f of functions) {
    for (const check of CHECKS) {
      const value = check.value(f);
      const limit = check.limit(t);
      if (value <= limit) continue;
      out.push({
        rule_id: check.rule,
        category: 'complexity',
        severity: value > limit * 2 ? 'high' : 'medium',
        confidence: 'high',
        message: check.message(f, value, limit),
        line: f.start_line,
        column: 1,
        end_line: f.end_line,
        end_column: (lines[f.end_line - 1]?.length ?? 0) + 1,
        snippet: (lines[f.start_line - 1] ?? '').trim().slice(0, 200),
        cwe: null,
      });
    }
  }
  return out;
}

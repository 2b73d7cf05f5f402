import { type Captures, forJs, type RuleDefinition } from './types';

/** Nothing but braces (comments count: a comment says the emptiness is meant). */
const empty = (text: string | undefined): boolean => (text ?? '').replace(/\s+/g, '') === '{}';
/** Nothing but braces and comments. */
const noStatements = (text: string | undefined): boolean =>
  (text ?? '').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|#[^\n]*/g, '').replace(/\s+/g, '') === '{}';
/** `!f.mkdirs()`, `!file.delete()`: a call's failure, tested. */
const failureTest = (c: Captures): boolean => /^\(?\s*!\s*[\w.]+\s*\(.*\)\s*\)?$/s.test(c.cond?.text ?? '');

/** Blocks and statements whose shape does not do what it looks like (SonarSource S108, S2681, S1116, S131). */
export const BLOCK_RULES: RuleDefinition[] = [
  {
    id: 'bug/empty-block',
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-398',
    message:
      'This block is empty, so the statement has no effect; fill it in, remove it, or say in a comment why it is empty.',
    languages: {
      java: `[(if_statement condition: (_) @cond consequence: (block) @body) @finding
              (if_statement alternative: (block) @body) @finding
              (for_statement body: (block) @body) @finding
              (enhanced_for_statement body: (block) @body) @finding
              (while_statement body: (block) @body) @finding
              (block (block) @body @finding)]`,
      c: `[(if_statement condition: (_) @cond consequence: (compound_statement) @body) @finding
           (else_clause (compound_statement) @body) @finding]`,
      csharp: `[(if_statement condition: (_) @cond consequence: (block) @body) @finding
                (for_statement body: (block) @body) @finding]`,
      ...forJs(`[(if_statement condition: (_) @cond consequence: (statement_block) @body) @finding
                 (else_clause (statement_block) @body) @finding]`),
    },
    check: (c) => empty(c.body?.text) && !failureTest(c),
  },
  {
    id: 'bug/ignored-failure',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-390',
    message:
      'The failure `{cond}` is detected and then nothing is done; report it, recover from it, or stop.',
    languages: {
      java: `(if_statement condition: (_) @cond consequence: (block) @body) @finding`,
      c: `(if_statement condition: (_) @cond consequence: (compound_statement) @body) @finding`,
      csharp: `(if_statement condition: (_) @cond consequence: (block) @body) @finding`,
      ...forJs(`(if_statement condition: (_) @cond consequence: (statement_block) @body) @finding`),
    },
    check: (c) => noStatements(c.body?.text) && failureTest(c),
  },
  {
    id: 'bug/misleading-if',
    needles: ['if'],
    category: 'bug',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-483',
    message:
      'Only the first statement after this `if` is conditional, though the layout suggests more (or a stray `;` ends the `if`); add braces around the statements meant to be conditional.',
    languages: {
      java: `[((if_statement consequence: (expression_statement) @body !alternative) @finding . (_) @next)
              (if_statement consequence: ";" @semi) @finding]`,
      c: `((if_statement consequence: (expression_statement) @body !alternative) @finding . (_) @next)`,
      ...forJs(`[((if_statement consequence: (expression_statement) @body !alternative) @finding . (_) @next)
                 (if_statement consequence: (empty_statement) @semi) @finding]`),
    },
    check: (c) => {
      if (c.semi) return true;
      const { body, next, finding } = c;
      if (!body || !next || !finding || /comment/.test(next.type) || body.text === ';') return false;
      // The next statement shares the body's line, or sits indented like the body on a later line.
      return next.row === body.row || (body.row > finding.row && next.column === body.column);
    },
  },
  {
    id: 'bug/switch-without-default',
    needles: ['switch'],
    category: 'bug',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-478',
    message:
      'This switch has no `default`, so a value no case expects is silently ignored; add a `default` that handles or rejects it.',
    languages: {
      java: `(switch_expression body: (switch_block) @body) @finding`,
      c: `(switch_statement body: (compound_statement) @body) @finding`,
      cpp: `(switch_statement body: (compound_statement) @body) @finding`,
      ...forJs(`(switch_statement body: (switch_body) @body) @finding`),
    },
    // An enum switch that is an expression must be exhaustive already; nested switches speak for themselves.
    check: (c) => !/\bdefault\s*(:|->)/.test(c.body?.text ?? '') && /\bcase\b/.test(c.body?.text ?? ''),
  },
];

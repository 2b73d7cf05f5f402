import { type Captures, forJs, type RuleDefinition } from './types';

const MIN =
  /^(Integer|Long|Short|Byte|Character|int|long|short|byte|Int|Long|Short|Byte|math)\.(MIN_VALUE|MinValue|MinInt\d*)$|^(INT|LONG|SHRT|SCHAR|LLONG)_MIN$/;
const MAX =
  /^(Integer|Long|Short|Byte|Character|int|long|short|byte|Int|Long|Short|Byte|math)\.(MAX_VALUE|MaxValue|MaxInt\d*)$|^(INT|LONG|SHRT|SCHAR|LLONG)_MAX$/;

/** `x < Integer.MIN_VALUE` is never true, `x <= Integer.MAX_VALUE` always; `n == n - 1` never, `n != n + 1` always. */
function truthOf(c: Captures): boolean | undefined {
  const op = c.op?.text;
  const left = (c.left?.text ?? '').replace(/\s+/g, '');
  const right = (c.right?.text ?? '').replace(/\s+/g, '');
  if (MIN.test(right)) return op === '<' ? false : op === '>=' ? true : undefined;
  if (MAX.test(right)) return op === '>' ? false : op === '<=' ? true : undefined;
  if (MIN.test(left)) return op === '>' ? false : op === '<=' ? true : undefined;
  if (MAX.test(left)) return op === '<' ? false : op === '>=' ? true : undefined;
  if (op !== '==' && op !== '!=' && op !== '===' && op !== '!==') return undefined;
  const strip = (s: string) => s.replace(/^\((.*)\)$/, '$1');
  const shifted = (a: string, b: string) =>
    new RegExp(`^${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[-+]0*[1-9]\\d*$`).test(b);
  const [a, b] = [strip(left), strip(right)];
  if (!/^[\w.]+$/.test(a) && !/^[\w.]+$/.test(b)) return undefined;
  if (shifted(a, b) || shifted(b, a)) return op === '!=' || op === '!==';
  return undefined;
}

const COMPARISON = `(binary_expression left: (_) @left operator: _ @op right: (_) @right) @finding`;
const languages = {
  java: COMPARISON,
  csharp: COMPARISON,
  c: COMPARISON,
  cpp: COMPARISON,
  go: COMPARISON,
  ...forJs(COMPARISON),
};

/**
 * Comparisons whose outcome the types or the operands already fix, whatever the values (SonarSource S2583/S2589,
 * CodeQL's comparison-of-identical-expressions family). Conditions that constants decide are the dataflow's
 * `bug/constant-condition`.
 */
export const CONDITION_RULES: RuleDefinition[] = [
  {
    id: 'bug/always-false-comparison',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-570',
    message:
      "`{finding}` is always false (no value is below the type's minimum or above its maximum, and no number equals itself shifted); the code it guards never runs.",
    languages,
    check: (c) => truthOf(c) === false,
  },
  {
    id: 'bug/always-true-comparison',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-571',
    message:
      "`{finding}` is always true (every value is within its type's range, and no number equals itself shifted); test what was meant.",
    languages,
    check: (c) => truthOf(c) === true,
  },
];

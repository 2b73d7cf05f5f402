import type { RuleDefinition } from './types';
import { same } from './types';

const JS_LIKE = ['javascript', 'typescript', 'tsx'] as const;
const forJs = (query: string) => Object.fromEntries(JS_LIKE.map((l) => [l, query]));

/** Bug rules: each a query per language, with the message saying how to fix it. */
export const BUG_RULES: RuleDefinition[] = [
  {
    id: 'bug/assignment-in-condition',
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    message:
      'Assignment `{finding}` used as a condition; use `===`/`==` to compare, or move the assignment out of the condition.',
    languages: {
      ...forJs(`[(if_statement condition: (parenthesized_expression (assignment_expression) @finding))
                 (while_statement condition: (parenthesized_expression (assignment_expression) @finding))
                 (do_statement condition: (parenthesized_expression (assignment_expression) @finding))]`),
      c: `[(if_statement condition: (parenthesized_expression (assignment_expression) @finding))
           (while_statement condition: (parenthesized_expression (assignment_expression) @finding))]`,
      cpp: `(if_statement condition: (condition_clause value: (assignment_expression) @finding))`,
      php: `(if_statement condition: (parenthesized_expression (assignment_expression) @finding))`,
    },
  },
  {
    id: 'bug/loose-equality',
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    message: 'Loose equality `{finding}` converts types before comparing; use `===` or `!==`.',
    languages: forJs(`((binary_expression left: (_) @left operator: ["==" "!="] right: (_) @right) @finding
      (#not-match? @left "^(null|undefined)$") (#not-match? @right "^(null|undefined)$"))`),
  },
  {
    id: 'bug/self-comparison',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      'Comparing `{left}` with itself is always true or false (NaN aside); compare with the intended value, or use Number.isNaN / math.isnan to test for NaN.',
    languages: {
      ...forJs(
        `(binary_expression left: (_) @left operator: ["===" "==" "!==" "!=" "<" ">" "<=" ">="] right: (_) @right) @finding`,
      ),
      python: `(comparison_operator (_) @left ["==" "!=" "<" ">" "<=" ">=" "is"] (_) @right) @finding`,
      java: `(binary_expression left: (_) @left operator: ["==" "!=" "<" ">"] right: (_) @right) @finding`,
      go: `(binary_expression left: (_) @left operator: ["==" "!=" "<" ">"] right: (_) @right) @finding`,
    },
    check: same('left', 'right'),
  },
];

import { FLOW_BUG_RULES } from './bugs-flow';
import type { RuleDefinition } from './types';
import { forJs, same } from './types';

const COMPARISON = `["===" "==" "!==" "!=" "<" ">" "<=" ">="]`;

/** Bug rules: each a query per language, with the message saying how to fix it. */
export const BUG_RULES: RuleDefinition[] = [
  {
    id: 'bug/assignment-in-condition',
    needles: ['if', 'while'],
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-481',
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
      // Java accepts only a boolean assigned in a condition: `if (done = true)`.
      java: `[(if_statement condition: (parenthesized_expression (assignment_expression) @finding))
              (while_statement condition: (parenthesized_expression (assignment_expression) @finding))]`,
    },
  },
  {
    id: 'bug/loose-equality',
    needles: ['==', '!='],
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
      ...forJs(`(binary_expression left: (_) @left operator: ${COMPARISON} right: (_) @right) @finding`),
      python: `(comparison_operator (_) @left ["==" "!=" "<" ">" "<=" ">=" "is"] (_) @right) @finding`,
      java: `(binary_expression left: (_) @left operator: ["==" "!=" "<" ">" "<=" ">="] right: (_) @right) @finding`,
      go: `(binary_expression left: (_) @left operator: ["==" "!=" "<" ">" "<=" ">="] right: (_) @right) @finding`,
      c: `(binary_expression left: (_) @left operator: ["==" "!=" "<" ">" "<=" ">="] right: (_) @right) @finding`,
    },
    check: same('left', 'right'),
  },
  {
    id: 'bug/self-assignment',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      '`{finding}` assigns a value to itself and does nothing; assign the intended value (a parameter or field of the same name?).',
    languages: {
      ...forJs(`(assignment_expression left: (_) @left right: (_) @right) @finding`),
      python: `(assignment left: (_) @left right: (_) @right) @finding`,
      java: `(assignment_expression left: (_) @left right: (_) @right) @finding`,
      c: `(assignment_expression left: (_) @left operator: "=" right: (_) @right) @finding`,
      go: `(assignment_statement left: (expression_list . (_) @left .) right: (expression_list . (_) @right .)) @finding`,
    },
    check: same('left', 'right'),
  },
  {
    id: 'bug/nan-comparison',
    needles: ['NaN', 'nan'],
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    message:
      '`{finding}` is always false (true for !=): NaN is not equal to anything, itself included; use Number.isNaN(x) / math.isnan(x) / Double.isNaN(x).',
    languages: {
      ...forJs(`((binary_expression left: (_) @left operator: ${COMPARISON} right: (_) @right) @finding
        (#match? @finding "(^|[^.\\\\w])(Number\\\\.)?NaN\\\\b"))`),
      python: `((comparison_operator) @finding (#match? @finding "float\\\\(\\\\s*['\\"]nan['\\"]\\\\s*\\\\)|math\\\\.nan|np\\\\.nan|numpy\\\\.nan"))`,
      java: `((binary_expression operator: ["==" "!="]) @finding (#match? @finding "(Double|Float)\\\\.NaN"))`,
    },
  },
  {
    id: 'bug/identical-branches',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      'Both branches of this conditional are identical (`{then}`), so the condition has no effect; fix the branch that is wrong or remove the condition.',
    languages: {
      ...forJs(`[(if_statement consequence: (_) @then alternative: (else_clause (statement_block) @else)) @finding
                 (ternary_expression consequence: (_) @then alternative: (_) @else) @finding]`),
      python: `[(if_statement consequence: (block) @then alternative: (else_clause body: (block) @else)) @finding
                (conditional_expression (_) @then (_) (_) @else) @finding]`,
      java: `(if_statement consequence: (block) @then alternative: (block) @else) @finding`,
      go: `(if_statement consequence: (block) @then alternative: (block) @else) @finding`,
    },
    check: same('then', 'else'),
  },
  {
    id: 'bug/duplicate-condition',
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    message:
      'Condition `{first}` is tested again in the same if/else-if chain; the second branch can never run. Test the intended condition.',
    languages: {
      ...forJs(
        `(if_statement condition: (_) @first alternative: (else_clause (if_statement condition: (_) @finding)))`,
      ),
      python: `(if_statement condition: (_) @first alternative: (elif_clause condition: (_) @finding))`,
      java: `(if_statement condition: (_) @first alternative: (if_statement condition: (_) @finding))`,
      go: `(if_statement condition: (_) @first alternative: (if_statement condition: (_) @finding))`,
      c: `(if_statement condition: (_) @first alternative: (else_clause (if_statement condition: (_) @finding)))`,
      php: `(if_statement condition: (_) @first alternative: (else_if_clause condition: (_) @finding))`,
    },
    check: same('first', 'finding'),
  },
  {
    id: 'bug/duplicate-key',
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    message:
      'Key {finding} appears twice in this literal; the later value silently replaces the first. Remove or rename one.',
    languages: {
      ...forJs(`(object (pair key: (_) @first) (pair key: (_) @finding))`),
      python: `(dictionary (pair key: (_) @first) (pair key: (_) @finding))`,
      php: `(array_creation_expression (array_element_initializer (_) @first "=>") (array_element_initializer (_) @finding "=>"))`,
      ruby: `(hash (pair key: (_) @first) (pair key: (_) @finding))`,
    },
    check: same('first', 'finding'),
  },
  ...FLOW_BUG_RULES,
];

import type { SyntaxNode } from '../parsing/tree';
import { declaredType } from './java-scope';
import { field, type Scope, type ScopedRule } from './scoped';

const STRING_TYPES = new Set(['String']);

/** Whether an operand is a String: a string literal, or a name declared `String` in the method or class. */
function isString(node: SyntaxNode, scope: Scope): boolean {
  if (node.type === 'string_literal') return true;
  if (node.type !== 'identifier') return false;
  const type = declaredType(scope.text(node), node, scope);
  return type !== undefined && STRING_TYPES.has(type);
}

const unparenthesised = (node: SyntaxNode | undefined): SyntaxNode | undefined => {
  let n = node;
  while (n?.type === 'parenthesized_expression') n = n.children.find((c) => c.named);
  return n;
};

/**
 * Operators that compile but do not do what they read as: Strings compared by reference (SpotBugs
 * ES_COMPARING_STRINGS_WITH_EQ, SonarSource S4973) and a comparison written where an assignment was meant
 * (`(ok == check()) == true`, CWE-482).
 */
export const OPERATOR_MISTAKE_RULES: ScopedRule[] = [
  {
    id: 'bug/string-reference-comparison',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-597',
    message:
      '`{detail}` compares two String references, not their text: equal strings built at run time are different objects. Use `equals()`.',
    needles: ['==', '!='],
    nodes: { java: ['binary_expression'] },
    test: (node, scope) => {
      const op = scope.text(field(node, 'operator') ?? node);
      if (op !== '==' && op !== '!=') return;
      const left = field(node, 'left');
      const right = field(node, 'right');
      if (!left || !right) return;
      // Two literals are interned (and a constant comparison is another rule's); one named String is enough.
      const named = [left, right].filter((o) => o.type === 'identifier');
      if (named.length === 0 || !isString(left, scope) || !isString(right, scope)) return;
      return { detail: scope.text(node) };
    },
  },
  {
    // Semgrep's c-string-equality, CERT STR-C: in C, `name == "admin"` compares the pointer with the literal's
    // address, never the characters. (C++ is left out: there `==` on a std::string compares the text.)
    id: 'bug/c-string-pointer-comparison',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-597',
    message:
      '`{detail}` compares a pointer with the address of a string literal, not the characters; use `strcmp(a, b) == 0`.',
    needles: ['=="', '!="', '== "', '!= "'],
    nodes: { c: ['binary_expression'] },
    test: (node, scope) => {
      const op = scope.text(field(node, 'operator') ?? node);
      if (op !== '==' && op !== '!=') return;
      const operands = [field(node, 'left'), field(node, 'right')];
      const literals = operands.filter((o) => o?.type === 'string_literal');
      if (literals.length !== 1 || operands.some((o) => !o || o.type === 'null')) return;
      return { detail: scope.text(node) };
    },
  },
  {
    id: 'bug/comparison-instead-of-assignment',
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-482',
    message:
      '`{detail}` compares a variable where the parentheses suggest it was to be assigned (`=`): the variable keeps its old value. Write `=` if an assignment was meant.',
    needles: ['=='],
    nodes: {
      java: ['binary_expression'],
      csharp: ['binary_expression'],
      c: ['binary_expression'],
      cpp: ['binary_expression'],
    },
    test: (node, scope) => {
      if (!['==', '!='].includes(scope.text(field(node, 'operator') ?? node))) return;
      const left = field(node, 'left');
      const right = unparenthesised(field(node, 'right'));
      // `(x == expr) == true`: the inner comparison of a plain variable, compared again with a boolean literal,
      // is the shape `(x = expr) == true` takes with one `=` too many.
      if (
        left?.type !== 'parenthesized_expression' ||
        !right ||
        !/^(true|false|boolean_literal)$/.test(right.type)
      )
        return;
      const inner = unparenthesised(left);
      if (inner?.type !== 'binary_expression' || scope.text(field(inner, 'operator') ?? inner) !== '==')
        return;
      return field(inner, 'left')?.type === 'identifier' ? { detail: scope.text(inner) } : undefined;
    },
  },
];

import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, localDeclaration, valuesOf } from './java-scope';
import { field, type Scope, type ScopedRule } from './scoped';

const inner = (node: SyntaxNode | undefined): SyntaxNode | undefined => {
  let n = node;
  while (n?.type === 'parenthesized_expression') n = n.children.find((c) => c.named);
  return n;
};

/** The one class a local certainly holds: every value it is given is `new T(…)` of the same `T`. */
function exactClass(name: SyntaxNode, scope: Scope): string | undefined {
  if (name.type !== 'identifier') return undefined;
  const local = localDeclaration(scope.text(name), name, scope);
  if (!local) return undefined;
  const types = new Set(
    valuesOf(scope.text(name), local.block, scope).map((v) =>
      v.type === 'object_creation_expression' && !v.children.some((c) => c.type === 'class_body')
        ? scope.text(field(v, 'type') ?? v)
        : '?',
    ),
  );
  const [only] = [...types];
  return types.size === 1 && only !== '?' ? only : undefined;
}

/** `x.getClass()` → `x`. */
const getClassOf = (node: SyntaxNode | undefined, scope: Scope): SyntaxNode | undefined =>
  node?.type === 'method_invocation' &&
  scope.text(field(node, 'name') ?? node) === 'getClass' &&
  argumentsOf(node).length === 0
    ? field(node, 'object')
    : undefined;

/**
 * Conditions written as constants (SonarSource S1145: `if (true)`, `if (false)`; CWE-571/570) and class
 * comparisons of two objects whose classes are known to differ (`new Random()` vs `new SecureRandom()`: their
 * `getClass()` are never equal).
 */
export const LITERAL_CONDITION_RULES: ScopedRule[] = [
  {
    id: 'bug/literal-condition',
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-571',
    message:
      'This condition is the literal `{detail}`: the branch is always or never taken. Remove the `if` (or the dead branch).',
    needles: ['true', 'false'],
    nodes: { java: ['if_statement'], csharp: ['if_statement'] },
    test: (statement, scope) => {
      const condition = inner(field(statement, 'condition'));
      if (!condition) return;
      const text = scope.text(condition);
      if (text === 'true') return { detail: text };
      if (text === 'false') return { detail: text, cwe: 'CWE-570' };
      return undefined;
    },
  },
  {
    id: 'bug/classes-never-equal',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-570',
    message: '{detail}',
    needles: ['getClass'],
    nodes: { java: ['method_invocation', 'binary_expression'] },
    test: (node, scope) => {
      let left: SyntaxNode | undefined;
      let right: SyntaxNode | undefined;
      if (node.type === 'method_invocation') {
        if (scope.text(field(node, 'name') ?? node) !== 'equals') return;
        left = getClassOf(field(node, 'object'), scope);
        right = getClassOf(inner(argumentsOf(node)[0]), scope);
      } else {
        if (scope.text(field(node, 'operator') ?? node) !== '==') return;
        left = getClassOf(inner(field(node, 'left')), scope);
        right = getClassOf(inner(field(node, 'right')), scope);
      }
      const a = left && exactClass(left, scope);
      const b = right && exactClass(right, scope);
      if (!a || !b || a === b) return;
      let outer = node;
      while (outer.parent?.type === 'parenthesized_expression') outer = outer.parent;
      const negated =
        outer.parent?.type === 'unary_expression' && scope.text(outer.parent).trim().startsWith('!');
      const detail = `A ${a} and a ${b} never have the same class, so this comparison is always ${negated ? 'true' : 'false'}.`;
      return negated && outer.parent ? { at: outer.parent, detail, cwe: 'CWE-571' } : { detail };
    },
  },
];

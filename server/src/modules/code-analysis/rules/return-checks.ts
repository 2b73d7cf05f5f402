import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf } from './java-scope';
import { field, type Scope, type ScopedRule } from './scoped';

const unparenthesised = (node: SyntaxNode | undefined): SyntaxNode | undefined => {
  let n = node;
  while (n?.type === 'parenthesized_expression') n = n.children.find((c) => c.named);
  return n;
};

const CALLS = ['method_invocation', 'invocation_expression', 'call_expression'];

/** The method a call node calls (`in.read(buf)` → `read`), across the Java, C# and JS grammars. */
function calleeName(call: SyntaxNode, scope: Scope): string | undefined {
  const name = field(call, 'name');
  if (name) return scope.text(name);
  const fn = field(call, 'function');
  if (!fn) return undefined;
  const member = field(fn, 'name') ?? field(fn, 'property');
  return scope.text(member ?? fn).replace(/^.*\./, '');
}

type Misread = { detail: string };

/**
 * A comparison that reads a library's return value wrongly: `read(buf) == 0` for the end of a stream (it is -1;
 * 0 only for an empty buffer), `indexOf(x) > 0` for "found" (misses index 0; SpotBugs
 * RV_CHECK_FOR_POSITIVE_INDEXOF), `compareTo(x) == 1` (only the sign is specified; SpotBugs
 * RV_CHECK_COMPARETO_FOR_SPECIFIC_RETURN_VALUE).
 */
function misread(
  call: SyntaxNode,
  op: string,
  literal: string,
  callOnLeft: boolean,
  scope: Scope,
): Misread | undefined {
  const name = calleeName(call, scope);
  if (!name) return undefined;
  const args =
    call.type === 'call_expression'
      ? (field(call, 'arguments')?.children ?? []).filter((c) => c.named)
      : argumentsOf(call);
  if (name === 'read' && args.length >= 1 && literal === '0' && (op === '==' || op === '!='))
    return {
      detail: `read(…) ${op} 0: read returns -1 at the end of the stream, and 0 only for an empty buffer`,
    };
  if (/^(indexOf|IndexOf|lastIndexOf|LastIndexOf)$/.test(name) && literal === '0') {
    const positive = callOnLeft ? op === '>' || op === '<=' : op === '<' || op === '>=';
    if (positive)
      return {
        detail: `${name}(…) compared with 0: a match at index 0 counts as not found (use >= 0 or != -1)`,
      };
  }
  if (
    /^(compareTo|CompareTo|compare|Compare)$/.test(name) &&
    /^-?1$/.test(literal) &&
    (op === '==' || op === '!=')
  )
    return {
      detail: `${name}(…) ${op} ${literal}: only the sign of the result is specified (use < 0 or > 0)`,
    };
  return undefined;
}

const NUMBER = /^(decimal_integer_literal|integer_literal|number|unary_expression|prefix_unary_expression)$/;

export const RETURN_CHECK_RULES: ScopedRule[] = [
  {
    id: 'bug/incorrect-return-check',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-253',
    message: 'Return value checked wrongly: {detail}.',
    needles: ['read(', 'ndexOf(', 'ompare'],
    nodes: {
      java: ['binary_expression'],
      csharp: ['binary_expression'],
      javascript: ['binary_expression'],
      typescript: ['binary_expression'],
      tsx: ['binary_expression'],
    },
    test: (node, scope) => {
      const opNode = field(node, 'operator');
      const op = opNode ? scope.text(opNode) : '';
      const left = unparenthesised(field(node, 'left'));
      const right = unparenthesised(field(node, 'right'));
      if (!left || !right) return;
      for (const [call, literal, callOnLeft] of [
        [left, right, true],
        [right, left, false],
      ] as const) {
        if (!CALLS.includes(call.type) || !NUMBER.test(literal.type)) continue;
        const hit = misread(
          call,
          op.replace('===', '==').replace('!==', '!='),
          scope.text(literal).replace(/\s+/g, ''),
          callOnLeft,
          scope,
        );
        if (hit) return hit;
      }
      return undefined;
    },
  },
];

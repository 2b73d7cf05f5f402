import type { Finding, FindingCategory, FindingConfidence, FindingSeverity } from '@tessera/shared';
import { locate } from '../../findings';
import type { ParsedSource } from '../../parsing/parse';
import { childByField, type SyntaxNode, walk } from '../../parsing/tree';

/** Small readers over the copied Go tree that the procedural Go analyses share. */

export const FUNCTION_TYPES = new Set(['function_declaration', 'method_declaration', 'func_literal']);

export const textOf = (parsed: ParsedSource, n: SyntaxNode): string =>
  parsed.source.slice(n.startIndex, n.endIndex);

export const field = (n: SyntaxNode, name: string): SyntaxNode | undefined => childByField(n, name);

export const namedChildren = (n: SyntaxNode | undefined): SyntaxNode[] =>
  n ? n.children.filter((c) => c.named && c.type !== 'comment') : [];

/** Every node of `type` under `root` (root included), in source order. */
export function nodesOf(root: SyntaxNode, types: string | Set<string>): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  walk(root, (n) => {
    if (typeof types === 'string' ? n.type === types : types.has(n.type)) out.push(n);
    return true;
  });
  return out;
}

/** The nearest function (declaration, method or literal) holding `n`. */
export function enclosingFunction(n: SyntaxNode): SyntaxNode | undefined {
  for (let p = n.parent; p; p = p.parent) if (FUNCTION_TYPES.has(p.type)) return p;
  return undefined;
}

/** Strips parentheses around an expression. */
export function unparen(n: SyntaxNode): SyntaxNode {
  let e = n;
  while (e.type === 'parenthesized_expression') {
    const inner = namedChildren(e)[0];
    if (!inner) break;
    e = inner;
  }
  return e;
}

/** A call's callee text (`cipher.NewCTR`) and its argument nodes. */
export function callParts(
  parsed: ParsedSource,
  call: SyntaxNode,
): { callee: string; fn: SyntaxNode | undefined; args: SyntaxNode[] } {
  const fn = field(call, 'function');
  return {
    callee: fn ? textOf(parsed, fn).replace(/\s+/g, '') : '',
    fn,
    args: namedChildren(field(call, 'arguments')),
  };
}

/** Parameter names of a function with the text of their type (`ctx` → `context.Context`). */
export function parameters(parsed: ParsedSource, fn: SyntaxNode): { name: string; type: string }[] {
  const out: { name: string; type: string }[] = [];
  for (const decl of namedChildren(field(fn, 'parameters'))) {
    const type = field(decl, 'type');
    const typeText = type ? textOf(parsed, type).replace(/\s+/g, '') : '';
    for (const c of decl.children)
      if (c.field === 'name') out.push({ name: textOf(parsed, c), type: typeText });
  }
  return out;
}

/** The left and right expressions of `a, b := x, y`, `a, b = x, y` or `var a, b = x, y`. */
export function assignmentSides(n: SyntaxNode): { left: SyntaxNode[]; right: SyntaxNode[] } | undefined {
  if (n.type === 'short_var_declaration' || n.type === 'assignment_statement')
    return { left: namedChildren(field(n, 'left')), right: namedChildren(field(n, 'right')) };
  if (n.type === 'var_spec' || n.type === 'const_spec')
    return {
      left: n.children.filter((c) => c.field === 'name'),
      right: namedChildren(field(n, 'value')),
    };
  return undefined;
}

export interface GoFindingSpec {
  rule_id: string;
  category: FindingCategory;
  severity: FindingSeverity;
  confidence: FindingConfidence;
  cwe: string;
  message: string;
}

export const finding = (parsed: ParsedSource, at: SyntaxNode, spec: GoFindingSpec): Finding => ({
  ...spec,
  ...locate(parsed, at),
});

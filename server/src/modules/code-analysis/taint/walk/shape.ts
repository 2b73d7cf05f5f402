/** A call's shape: its callee's text, its arguments and their list, whatever the grammar calls them. */
import type { SyntaxNode } from '../../parsing/tree';
import { ARGUMENT_LISTS, type CallShape, PACKAGE_PREFIX, select } from './shared';
import type { WalkState } from './state';

export function callShape(s: WalkState, call: SyntaxNode): CallShape {
  const isList = (c: SyntaxNode) => c.field === 'arguments' || ARGUMENT_LISTS.test(c.type);
  const suffix = call.children.find((c) => c.type === 'call_suffix');
  const argsNode = call.children.find(isList) ?? suffix?.children.find(isList);
  if (argsNode) {
    let callee = s.source.slice(call.startIndex, argsNode.startIndex).replace(/\s+/g, '');
    if (s.lang.qualifiedNames) callee = callee.replace(PACKAGE_PREFIX, '$1');
    const wrappers = s.lang.argumentWrappers ?? [];
    const args = argsNode.children
      .filter((c) => c.named && !/comment/.test(c.type))
      .map((a) => {
        if (a.type === 'argument' && a.children.length === 1) return a.children[0] as SyntaxNode;
        if (wrappers.includes(a.type)) return select(a, 'value') ?? select(a, '*last') ?? a;
        return a;
      });
    return { callee, args, argsNode };
  }
  const first = call.children[0];
  // `x.html_safe`: a method call without arguments (Ruby) is its receiver and method.
  if (call.children.some((c) => c.field === 'method'))
    return { callee: s.text(call), args: [], argsNode: undefined };
  return {
    callee: first ? s.text(first) : '',
    args: call.children.slice(1).filter((c) => c.named && !/comment/.test(c.type)),
    argsNode: undefined,
  };
}

import type { SyntaxNode } from '../parsing/tree';
import { indexOf, type LanguageProfile, matchesAny, type ProfileIndex } from './profile';

/** True for a binary node whose operator is a short-circuit operator of the language. */
export function isLogical(node: SyntaxNode, index: ProfileIndex, source: string): boolean {
  if (!index.logicalNodes.has(node.type)) return false;
  const n = node.children.length;
  for (let i = 1; i < n - 1; i += 1) {
    const child = node.children[i] as SyntaxNode;
    if (
      child.children.length === 0 &&
      index.logicalOperators.has(source.slice(child.startIndex, child.endIndex))
    ) {
      return true;
    }
  }
  return false;
}

/**
 * 1 + the decision points inside `root`, not counting nested functions and other separate code paths
 * (they have their own complexity), as ESLint's `complexity` rule and lizard count.
 */
export function cyclomatic(
  root: SyntaxNode,
  profile: LanguageProfile,
  source: string,
  crossFunctions = false,
): number {
  let count = 1;
  const index = indexOf(profile);
  const stack: SyntaxNode[] = [...root.children];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    // Anonymous tokens (Ruby's `if` keyword inside an `if` node) are never structures.
    if (!node.named) continue;
    if (!crossFunctions && (profile.functions[node.type] || index.boundaries.has(node.type))) continue;
    if (isLogical(node, index, source)) count += 1;
    else if (matchesAny(index.decisions, node, source)) count += 1;
    const children = node.children;
    for (let i = 0; i < children.length; i += 1) stack.push(children[i] as SyntaxNode);
  }
  return count;
}

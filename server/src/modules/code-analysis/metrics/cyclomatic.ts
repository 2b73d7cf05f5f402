import type { SyntaxNode } from '../parsing/tree';
import { type LanguageProfile, matches } from './profile';

/** True for a binary node whose operator is a short-circuit operator of the language. */
export function isLogical(node: SyntaxNode, profile: LanguageProfile, source: string): boolean {
  if (!profile.logicalNodes.includes(node.type)) return false;
  const n = node.children.length;
  for (let i = 1; i < n - 1; i += 1) {
    const child = node.children[i] as SyntaxNode;
    if (
      child.children.length === 0 &&
      profile.logicalOperators.includes(source.slice(child.startIndex, child.endIndex))
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
  const stack: SyntaxNode[] = [...root.children];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    // Anonymous tokens (Ruby's `if` keyword inside an `if` node) are never structures.
    if (!node.named) continue;
    if (!crossFunctions && (profile.functions[node.type] || profile.boundaries.includes(node.type))) continue;
    if (isLogical(node, profile, source)) count += 1;
    else if (profile.decisions.some((m) => matches(m, node, source))) count += 1;
    for (const child of node.children) stack.push(child);
  }
  return count;
}

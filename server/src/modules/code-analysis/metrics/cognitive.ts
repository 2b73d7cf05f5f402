import type { SyntaxNode } from '../parsing/tree';
import { isLogical } from './cyclomatic';
import { indexOf, type LanguageProfile, matchesAny, type ProfileIndex } from './profile';

export interface CognitiveResult {
  cognitive: number;
  maxNesting: number;
}

interface Walk {
  profile: LanguageProfile;
  index: ProfileIndex;
  source: string;
  name: string | undefined;
  total: number;
  maxNesting: number;
}

/**
 * Cognitive complexity as SonarSource's specification defines it (G. Ann Campbell, 2017):
 * +1 for each break in linear flow, plus the current nesting for structures that nest (if, ternary, switch, loops,
 * catch); else / else-if / elif +1 without nesting; +1 per sequence of like boolean operators; +1 per recursive
 * call; nested functions and lambdas raise the nesting of what they contain and count toward the outer function.
 */
export function cognitive(
  root: SyntaxNode,
  profile: LanguageProfile,
  source: string,
  name?: string,
): CognitiveResult {
  const state: Walk = { profile, index: indexOf(profile), source, name, total: 0, maxNesting: 0 };
  for (const child of root.children) visit(child, 0, 0, state);
  return { cognitive: state.total, maxNesting: state.maxNesting };
}

function visit(node: SyntaxNode, nesting: number, depth: number, s: Walk): void {
  if (!node.named) return;
  const { profile } = s;
  if (profile.functions[node.type]) {
    for (const child of node.children) visit(child, nesting + 1, depth, s);
    return;
  }
  if (isLogical(node, s.index, s.source)) {
    if (!isLogicalParent(node.parent, s)) s.total += operatorSequences(node, s);
  } else if (matchesAny(s.index.jumps, node, s.source)) {
    s.total += 1;
  } else if (isCall(node, s) && isRecursive(node, s)) {
    s.total += 1;
  }
  if (s.index.ifs.has(node.type)) {
    visitIf(node, nesting, depth, s, isElseIf(node, s));
    return;
  }
  if (s.index.elses.has(node.type)) {
    visitElse(node, nesting, depth, s);
    return;
  }
  if (s.index.nesting.has(node.type)) {
    s.total += 1 + nesting;
    s.maxNesting = Math.max(s.maxNesting, depth + 1);
    for (const child of node.children) visit(child, nesting + 1, depth + 1, s);
    return;
  }
  for (const child of node.children) visit(child, nesting, depth, s);
}

function visitIf(node: SyntaxNode, nesting: number, depth: number, s: Walk, elseIf: boolean): void {
  // An else-if continues the chain of the `if` it belongs to: +1, no nesting increment.
  s.total += elseIf ? 1 : 1 + nesting;
  // The chain's branches all sit one level deeper than the chain itself.
  const inner = nesting + 1;
  const innerDepth = depth + 1;
  s.maxNesting = Math.max(s.maxNesting, innerDepth);
  let afterElse = false;
  for (const child of node.children) {
    if (child.field === 'condition') visit(child, nesting, depth, s);
    else if (!child.named && child.type === 'else') afterElse = true;
    else if (s.index.elses.has(child.type)) visit(child, nesting, depth, s);
    else if (afterElse || child.field === 'alternative') {
      // Grammars without an else node: what follows `else` is either an else-if or the else body.
      const chained = onlyIf(child, s);
      if (chained) visitIf(chained, nesting, depth, s, true);
      else {
        s.total += 1;
        visit(child, inner, innerDepth, s);
      }
    } else visit(child, inner, innerDepth, s);
  }
}

function visitElse(node: SyntaxNode, nesting: number, depth: number, s: Walk): void {
  const chained = onlyIf(node, s);
  if (chained) {
    visitIf(chained, nesting, depth, s, true);
    return;
  }
  s.total += 1;
  for (const child of node.children) {
    // A following elsif/else (Ruby nests them) continues the same chain.
    if (child.field === 'condition' || s.index.elses.has(child.type)) visit(child, nesting, depth, s);
    else visit(child, nesting + 1, depth + 1, s);
  }
  s.maxNesting = Math.max(s.maxNesting, depth + 1);
}

/** The `if` that is the sole statement of an else branch, if any. */
function onlyIf(node: SyntaxNode, s: Walk): SyntaxNode | undefined {
  if (s.index.ifs.has(node.type)) return node;
  // `else { if … }` written with braces is an else holding an if, not an else-if.
  if (!s.index.elses.has(node.type) && node.type !== 'control_structure_body') return undefined;
  const named = node.children.filter((c) => c.named && !s.index.comments.has(c.type));
  if (named.length !== 1) return undefined;
  const only = named[0] as SyntaxNode;
  if (s.index.ifs.has(only.type)) return only;
  // Kotlin wraps the branch in a control_structure_body.
  if (only.type === 'control_structure_body') return onlyIf(only, s);
  return undefined;
}

function isElseIf(node: SyntaxNode, s: Walk): boolean {
  const parent = node.parent;
  if (!parent) return false;
  return s.index.elses.has(parent.type) && onlyIf(parent, s) === node;
}

function isLogicalParent(parent: SyntaxNode | null, s: Walk): boolean {
  let p = parent;
  while (p && p.type === 'parenthesized_expression') p = p.parent;
  return p !== null && isLogical(p, s.index, s.source);
}

/** Operators of a flattened boolean expression in source order; each change of operator starts a new sequence. */
function operatorSequences(node: SyntaxNode, s: Walk): number {
  const ops: string[] = [];
  const collect = (n: SyntaxNode): void => {
    if (n.type === 'parenthesized_expression') {
      for (const c of n.children) if (c.named) collect(c);
      return;
    }
    if (!isLogical(n, s.index, s.source)) return;
    for (const c of n.children) {
      if (c.named) collect(c);
      else {
        const op = s.source.slice(c.startIndex, c.endIndex);
        if (s.index.logicalOperators.has(op)) ops.push(op);
      }
    }
  };
  collect(node);
  let sequences = 0;
  let last = '';
  for (const op of ops) {
    if (op !== last) sequences += 1;
    last = op;
  }
  return sequences;
}

function isCall(node: SyntaxNode, s: Walk): boolean {
  return s.index.callTypes.has(node.type);
}

function isRecursive(node: SyntaxNode, s: Walk): boolean {
  if (!s.name || s.name === '<anonymous>') return false;
  const args = node.children.find((c) => c.field === 'arguments' || /argument/.test(c.type));
  const end = args ? args.startIndex : node.endIndex;
  const callee = s.source.slice(node.startIndex, end).replace(/\s+/g, '');
  const n = s.name;
  return (
    callee === n ||
    callee === `this.${n}` ||
    callee === `self.${n}` ||
    callee === `$this->${n}` ||
    callee === `self::${n}`
  );
}

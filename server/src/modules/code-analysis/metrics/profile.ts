import type { SyntaxNode } from '../parsing/tree';

/** A node type that counts, optionally only when a test on the node holds. */
export type NodeMatcher = string | { type: string; when: (node: SyntaxNode, source: string) => boolean };

/**
 * How one language's grammar expresses functions and control flow: the data the metric walkers read.
 * docs/code-analysis.md lists the decision points in prose.
 */
export interface LanguageProfile {
  /** Function-like node types and the kind reported for each. */
  functions: Record<string, string>;
  /** Separate code paths that are not reported as functions (class field initialisers, static blocks). */
  boundaries: string[];
  /** Each occurrence adds 1 to cyclomatic complexity. */
  decisions: NodeMatcher[];
  /** Binary nodes whose operator token may be a short-circuit operator. */
  logicalNodes: string[];
  logicalOperators: string[];
  /** `if`-like node types (else-if is recognised by position). */
  ifs: string[];
  /** Else / elif clause node types. */
  elses: string[];
  /** Structures that add 1 + nesting to cognitive complexity and nest what they contain. */
  nesting: string[];
  /** Flat +1 in cognitive complexity (goto, labelled jumps). */
  jumps: NodeMatcher[];
  callTypes: string[];
  comments: string[];
  parameterContainers: string[];
}

/** The text of a node. */
export const text = (node: SyntaxNode, source: string): string =>
  source.slice(node.startIndex, node.endIndex);

/** True when the node has a direct anonymous token of one of these types. */
export const hasToken =
  (...tokens: string[]) =>
  (node: SyntaxNode): boolean =>
    node.children.some((c) => !c.named && tokens.includes(c.type));

export const hasField =
  (field: string) =>
  (node: SyntaxNode): boolean =>
    node.children.some((c) => c.field === field);

/** A labelled break/continue: the statement carries a label child. */
export const labelled = (node: SyntaxNode): boolean =>
  node.children.some((c) => c.named && /label|identifier/.test(c.type));

export function matches(matcher: NodeMatcher, node: SyntaxNode, source: string): boolean {
  if (typeof matcher === 'string') return matcher === node.type;
  return matcher.type === node.type && matcher.when(node, source);
}

/** A profile's lists as sets and its matchers by node type, built once per profile: the walkers test every node. */
export interface ProfileIndex {
  decisions: Map<string, NodeMatcher[]>;
  jumps: Map<string, NodeMatcher[]>;
  boundaries: Set<string>;
  logicalNodes: Set<string>;
  logicalOperators: Set<string>;
  ifs: Set<string>;
  elses: Set<string>;
  nesting: Set<string>;
  callTypes: Set<string>;
  comments: Set<string>;
}

const indexes = new WeakMap<LanguageProfile, ProfileIndex>();

const byType = (matchers: NodeMatcher[]): Map<string, NodeMatcher[]> => {
  const map = new Map<string, NodeMatcher[]>();
  for (const m of matchers) {
    const type = typeof m === 'string' ? m : m.type;
    map.set(type, [...(map.get(type) ?? []), m]);
  }
  return map;
};

export function indexOf(profile: LanguageProfile): ProfileIndex {
  let index = indexes.get(profile);
  if (!index) {
    index = {
      decisions: byType(profile.decisions),
      jumps: byType(profile.jumps),
      boundaries: new Set(profile.boundaries),
      logicalNodes: new Set(profile.logicalNodes),
      logicalOperators: new Set(profile.logicalOperators),
      ifs: new Set(profile.ifs),
      elses: new Set(profile.elses),
      nesting: new Set(profile.nesting),
      callTypes: new Set(profile.callTypes),
      comments: new Set(profile.comments),
    };
    indexes.set(profile, index);
  }
  return index;
}

/** True when one of the matchers for the node's type matches it. */
export function matchesAny(
  byNodeType: Map<string, NodeMatcher[]>,
  node: SyntaxNode,
  source: string,
): boolean {
  const candidates = byNodeType.get(node.type);
  if (!candidates) return false;
  for (const m of candidates) if (typeof m === 'string' || m.when(node, source)) return true;
  return false;
}

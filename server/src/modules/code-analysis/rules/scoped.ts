import type {
  CodeLanguage,
  Finding,
  FindingCategory,
  FindingConfidence,
  FindingSeverity,
} from '@tessera/shared';
import { locate } from '../findings';
import type { ParsedSource } from '../parsing/parse';
import { childByField, type SyntaxNode, walk } from '../parsing/tree';

/**
 * Rules that need the code around a node, not only the node (a query cannot say "anywhere in this method" or "the
 * type this local was declared with"): each visits nodes of some types and is handed a `Scope` to look around.
 * All of them share one walk of the tree.
 */
export interface Scope {
  language: CodeLanguage;
  text: (node: SyntaxNode) => string;
  /** The nearest ancestor of one of the types (the node itself excluded). */
  enclosing: (node: SyntaxNode, types: string[]) => SyntaxNode | undefined;
}

export interface Hit {
  /** Where the finding is reported; the visited node when absent. */
  at?: SyntaxNode;
  /** Replaces `{detail}` in the rule's message. */
  detail?: string;
  /** A more precise CWE than the rule's (a leaked file handle is 775, another resource 772). */
  cwe?: string;
}

export interface ScopedRule {
  id: string;
  category: Exclude<FindingCategory, 'complexity'>;
  severity: FindingSeverity;
  confidence: FindingConfidence;
  cwe: string;
  message: string;
  /** The node types visited, per language. */
  nodes: Partial<Record<CodeLanguage, string[]>>;
  /** Text the file must contain (any one) for the rule to run. */
  needles?: string[];
  test: (node: SyntaxNode, scope: Scope) => Hit[] | Hit | undefined;
}

export const field = (node: SyntaxNode, name: string): SyntaxNode | undefined => childByField(node, name);

/** Every descendant of `root` (itself included) of one of the types, not entering nested nodes of `stop` types. */
export function descendants(root: SyntaxNode, types: string[], stop: string[] = []): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  walk(root, (n) => {
    if (n !== root && stop.includes(n.type)) return false;
    if (types.includes(n.type)) out.push(n);
    return true;
  });
  return out;
}

export function runScopedRules(parsed: ParsedSource, rules: ScopedRule[], categories: string[]): Finding[] {
  const active = rules.filter(
    (r) =>
      categories.includes(r.category) &&
      r.nodes[parsed.language] !== undefined &&
      (!r.needles || r.needles.some((n) => parsed.source.includes(n))),
  );
  if (active.length === 0) return [];
  const byType = new Map<string, ScopedRule[]>();
  for (const rule of active)
    for (const type of rule.nodes[parsed.language] ?? [])
      byType.set(type, [...(byType.get(type) ?? []), rule]);
  const scope: Scope = {
    language: parsed.language,
    text: (n) => parsed.source.slice(n.startIndex, n.endIndex),
    enclosing: (n, types) => {
      for (let p = n.parent; p; p = p.parent) if (types.includes(p.type)) return p;
      return undefined;
    },
  };
  const out: Finding[] = [];
  const seen = new Set<string>();
  walk(parsed.root, (node) => {
    for (const rule of byType.get(node.type) ?? []) {
      const result = rule.test(node, scope);
      const hits = result === undefined ? [] : Array.isArray(result) ? result : [result];
      for (const hit of hits) {
        const at = hit.at ?? node;
        const key = `${rule.id}:${at.startIndex}:${at.endIndex}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({
          rule_id: rule.id,
          category: rule.category,
          severity: rule.severity,
          confidence: rule.confidence,
          message: rule.message.replace('{detail}', (hit.detail ?? '').slice(0, 80)),
          ...locate(parsed, at),
          cwe: hit.cwe ?? rule.cwe,
        });
      }
    }
    return true;
  });
  return out;
}

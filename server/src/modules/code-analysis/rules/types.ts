import type { CodeLanguage, FindingCategory, FindingConfidence, FindingSeverity } from '@tessera/shared';

/** Captured nodes of one query match, by capture name (without the @). */
export interface Captures {
  /** `row` and `column`: where the node starts (0-based), for rules about layout. */
  [name: string]: { text: string; type: string; row: number; column: number } | undefined;
}

/**
 * One rule, as data: the tree-sitter query per language it covers, and its metadata.
 * The capture `@finding` marks where the finding is reported. `check` refines a match when a query
 * cannot express the condition (structural equality of two captures, say).
 */
export interface RuleDefinition {
  id: string;
  category: Exclude<FindingCategory, 'complexity'>;
  severity: FindingSeverity;
  confidence: FindingConfidence;
  cwe?: string;
  /** What is wrong and how to fix it; `{name}` is replaced by the text of capture `@name`. */
  message: string;
  languages: Partial<Record<CodeLanguage, string>>;
  check?: (captures: Captures) => boolean;
  /**
   * Text the rule cannot match without (any one of them, case-sensitive). A file containing none skips the rule's
   * query: web-tree-sitter evaluates predicates in JavaScript, so a broad pattern costs time on every candidate.
   */
  needles?: string[];
  /** Further needles for one language (Go's `"math/rand"` import), all languages' needles applying too. */
  needlesByLanguage?: Partial<Record<CodeLanguage, string[]>>;
  /** A rule reporting the same weakness with a dataflow: where it reports on the same line, this rule keeps quiet. */
  yieldsTo?: string;
  /** Text that makes the rule moot for the file in one language (Swift code that evaluates the server's trust). */
  unlessByLanguage?: Partial<Record<CodeLanguage, string[]>>;
}

/** Two captures are the same code, ignoring whitespace. */
export const same =
  (a: string, b: string) =>
  (c: Captures): boolean => {
    const x = c[a]?.text.replace(/\s+/g, '');
    const y = c[b]?.text.replace(/\s+/g, '');
    return x !== undefined && x === y;
  };

/** The same query for JavaScript, TypeScript and TSX (their grammars share these node names). */
export const forJs = (query: string): Record<string, string> =>
  Object.fromEntries(['javascript', 'typescript', 'tsx'].map((l) => [l, query]));

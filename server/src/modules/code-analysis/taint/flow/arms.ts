import type { SyntaxNode } from '../../parsing/tree';
import type { SwitchArm } from './types';

const named = (node: SyntaxNode) => node.children.filter((c) => c.named && !/comment/.test(c.type));

/** Statements that leave a C-family switch arm: the next arm is not run after them. */
const ENDS =
  /^(break_statement|return_statement|throw_statement|goto_statement|yield_statement|throw_expression)$/;

/**
 * Arms of a C-family `switch` (JavaScript, C, C#, PHP, Go): each clause's case labels (or `default`) and its
 * statements; a clause falls through into the next unless it ends in `break`/`return`/`throw`
 * (`fallsThrough: false`: Go's clauses never do, without `fallthrough`).
 */
export function switchArms(spec: {
  /** Field or node type holding the clauses, when they are not the switch's own children. */
  body?: string;
  /** Clause node types, and the default clause's (or a clause whose first token is `default`). */
  clauses: string[];
  defaults: string[];
  /** Node types of the labels inside a clause (else: its `value` fields). */
  labels?: string[];
  /** Children of a clause that are neither labels nor statements. */
  skip?: RegExp;
  fallsThrough: boolean;
}): (node: SyntaxNode) => SwitchArm[] {
  return (node) => {
    const body = spec.body ? node.children.find((c) => c.field === spec.body || c.type === spec.body) : node;
    const out: SwitchArm[] = [];
    for (const clause of body?.children ?? []) {
      if (!spec.clauses.includes(clause.type) && !spec.defaults.includes(clause.type)) continue;
      const isDefault =
        spec.defaults.includes(clause.type) || clause.children.some((c) => !c.named && c.type === 'default');
      const labelNodes = spec.labels
        ? named(clause).filter((c) => spec.labels?.includes(c.type))
        : clause.children.filter((c) => c.field === 'value');
      // Go's `case "a", "b":` holds its labels in one expression list.
      const labels = labelNodes.flatMap((l) => (l.type === 'expression_list' ? named(l) : [l]));
      const statements = named(clause).filter((c) => !labelNodes.includes(c) && !spec.skip?.test(c.type));
      const flat = statements.flatMap((s) => (s.type === 'statement_list' ? named(s) : [s]));
      out.push({
        labels: isDefault ? 'default' : labels.map((l) => unwrap(l)),
        body: statements,
        ends: !spec.fallsThrough
          ? !flat.some((s) => s.type === 'fallthrough_statement')
          : flat.some((s) => ENDS.test(s.type)),
      });
    }
    return out;
  };
}

/** A label wrapped in a pattern node (C#'s `constant_pattern`, Kotlin's `when_condition`): the expression inside. */
export function unwrap(label: SyntaxNode): SyntaxNode {
  if (/pattern|when_condition|literal_element/.test(label.type)) {
    const inner = named(label);
    if (inner.length === 1 && inner[0]) return unwrap(inner[0]);
  }
  return label;
}

import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax, SwitchArm } from './types';

const named = (node: SyntaxNode) => node.children.filter((c) => c.named && !/comment/.test(c.type));

/** Cases of a `match`: `_` or a bare binding is the default unless guarded; `a | b` lists labels. */
function arms(node: SyntaxNode): SwitchArm[] {
  const out: SwitchArm[] = [];
  const block = node.children.find((c) => c.field === 'body');
  for (const clause of block?.children ?? []) {
    if (clause.type !== 'case_clause') continue;
    const pattern = clause.children.find((c) => c.field === 'pattern');
    const guarded = clause.children.some((c) => c.field === 'guard' || c.type === 'guard');
    const wildcard = !guarded && (pattern?.type === 'wildcard' || pattern?.type === 'identifier');
    out.push({
      labels: wildcard
        ? 'default'
        : pattern?.type === 'alternative_pattern'
          ? named(pattern)
          : pattern
            ? [pattern]
            : [],
      body: clause.children.filter((c) => c.field === 'body' && c.named),
      ends: true,
    });
  }
  return out;
}

/** Scala: `if` and `match` are expressions; string literals are single tokens; `s"…$x"` interpolates. */
export const scalaFlow: FlowSyntax = {
  branches: {
    if_expression: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  ternaries: {},
  switches: { match_expression: { subject: 'value', arms } },
  loops: { while_expression: { condition: 'condition', body: 'body' } },
  foreach: {},
  tries: {},
  returns: ['return_expression'],
  exits: ['throw_expression'],
  breaks: [],
  literals: {
    strings: ['interpolated_string_expression', 'interpolated_string'],
    stringParts: [],
    interpolations: ['interpolation'],
    leafStrings: ['string'],
    numbers: ['integer_literal', 'floating_point_literal'],
    chars: ['character_literal'],
    trues: [],
    falses: [],
    nulls: [],
    booleans: ['boolean_literal'],
  },
  binaries: ['infix_expression'],
  comparisons: [],
  unaries: { prefix_expression: '*last' },
  parens: ['parenthesized_expression'],
  casts: {},
  subscripts: {},
  lists: [],
  dicts: {},
  newCollection: /^$/,
  typedDeclarations: {},
  receiver: () => undefined,
  method: () => undefined,
};

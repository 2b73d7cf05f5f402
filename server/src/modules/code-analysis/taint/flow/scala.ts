import type { SyntaxNode } from '../../parsing/tree';
import { flowSyntax, named } from './define';
import type { SwitchArm } from './types';

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
export const scalaFlow = flowSyntax({
  branches: {
    if_expression: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  // `base.concat(x)` returns a new string; the receiver is left as it was.
  concat: { methods: /^concat$/, inPlace: false },
  switches: { match_expression: { subject: 'value', arms } },
  loops: { while_expression: { condition: 'condition', body: 'body' } },
  returns: ['return_expression'],
  exits: ['throw_expression'],
  literals: {
    strings: ['interpolated_string_expression', 'interpolated_string'],
    interpolations: ['interpolation'],
    leafStrings: ['string'],
    numbers: ['integer_literal', 'floating_point_literal'],
    chars: ['character_literal'],
    booleans: ['boolean_literal'],
  },
  binaries: ['infix_expression'],
  unaries: { prefix_expression: '*last' },
  parens: ['parenthesized_expression'],
});

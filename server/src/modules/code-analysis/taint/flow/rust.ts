import type { SyntaxNode } from '../../parsing/tree';
import { field, flowSyntax, named } from './define';
import type { SwitchArm } from './types';

/** Arms of a `match`: `_` or a bare binding is the default unless guarded; `a | b` lists labels; none falls through. */
function arms(node: SyntaxNode): SwitchArm[] {
  const out: SwitchArm[] = [];
  for (const arm of field(node, 'body')?.children ?? []) {
    if (arm.type !== 'match_arm') continue;
    const pattern = field(arm, 'pattern');
    const value = field(arm, 'value');
    const guarded = pattern?.children.some((c) => c.field === 'condition') ?? false;
    const inner = pattern ? named(pattern).filter((c) => c.field !== 'condition') : [];
    const first = inner[0];
    const wildcard = !guarded && (inner.length === 0 || (inner.length === 1 && first?.type === 'identifier'));
    out.push({
      labels: wildcard ? 'default' : first?.type === 'or_pattern' ? named(first) : inner,
      body: value ? [value] : [],
      ends: true,
    });
  }
  return out;
}

/** Rust: `if` and `match` are expressions; `else` holds a block or the next `if`. */
export const rustFlow = flowSyntax({
  branches: {
    if_expression: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  elses: { else_clause: '*first' },
  switches: { match_expression: { subject: 'value', arms } },
  loops: {
    while_expression: { condition: 'condition', body: 'body' },
    loop_expression: { body: 'body' },
  },
  foreach: { for_expression: { target: 'pattern', iterable: 'value', body: 'body' } },
  returns: ['return_expression'],
  literals: {
    strings: ['string_literal', 'raw_string_literal'],
    stringParts: ['string_content', 'escape_sequence'],
    numbers: ['integer_literal', 'float_literal'],
    chars: ['char_literal'],
    booleans: ['boolean_literal'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_expression: '*last' },
  parens: ['parenthesized_expression'],
  casts: { type_cast_expression: 'value' },
  // Calls keep reading their callee's text (as without an adapter): method chains on builders and macros.
});

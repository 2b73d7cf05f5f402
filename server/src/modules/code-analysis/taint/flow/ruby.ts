import type { SyntaxNode } from '../../parsing/tree';
import { unwrap } from './arms';
import { field, flowSyntax } from './define';
import type { SwitchArm } from './types';

/** `case x when "a", "b" then … else … end`: no arm falls through. */
function arms(node: SyntaxNode): SwitchArm[] {
  const out: SwitchArm[] = [];
  for (const clause of node.children) {
    if (clause.type === 'when') {
      const body = field(clause, 'body');
      out.push({
        labels: clause.children.filter((c) => c.field === 'pattern').map(unwrap),
        body: body ? [body] : [],
        ends: true,
      });
    } else if (clause.type === 'else') out.push({ labels: 'default', body: [clause], ends: true });
  }
  return out;
}

/** Ruby: `if`/`elsif`/`else`, `unless`, modifiers (`x = y if c`), `case`/`when`, interpolated strings. */
export const rubyFlow = flowSyntax({
  branches: {
    if: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
    elsif: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
    unless: { condition: 'condition', consequence: 'consequence', alternative: 'alternative', negate: true },
    if_modifier: { condition: 'condition', consequence: 'body', alternative: '' },
    unless_modifier: { condition: 'condition', consequence: 'body', alternative: '', negate: true },
  },
  ternaries: {
    conditional: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  switches: { case: { subject: 'value', arms } },
  loops: {
    while: { condition: 'condition', body: 'body' },
    while_modifier: { condition: 'condition', body: 'body' },
  },
  returns: ['return'],
  literals: {
    strings: ['string'],
    stringParts: ['string_content', 'escape_sequence'],
    interpolations: ['interpolation'],
    numbers: ['integer', 'float'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['nil'],
  },
  binaries: ['binary'],
  unaries: { unary: 'operand' },
  parens: ['parenthesized_statements'],
  // Array literals keep their items, so a sink can read an argument vector (`exec(["sh", "-c", cmd])`).
  lists: ['array'],
  // `sql.concat(params[:q])`, `sql.prepend(…)`: Ruby's strings (and arrays) change in place.
  concat: { methods: /^(concat|prepend)$/, inPlace: true },
  receiver: (call) => field(call, 'receiver'),
  method: (call) => field(call, 'method'),
});

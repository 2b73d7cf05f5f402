import type { SyntaxNode } from '../../parsing/tree';
import { unwrap } from './arms';
import { flowSyntax, named } from './define';
import type { SwitchArm } from './types';

/** `when (x) { "a", "b" -> …; else -> … }`: no arm falls through; a `when` without subject tests conditions. */
function arms(node: SyntaxNode): SwitchArm[] {
  const out: SwitchArm[] = [];
  for (const entry of node.children) {
    if (entry.type !== 'when_entry') continue;
    const isElse = entry.children.some((c) => !c.named && c.type === 'else');
    const body = entry.children.filter((c) => c.type === 'control_structure_body');
    out.push({
      labels: isElse ? 'default' : entry.children.filter((c) => c.type === 'when_condition').map(unwrap),
      body,
      ends: true,
    });
  }
  return out;
}

/** The callee of `a.b(…)`: a navigation expression and its suffix. */
function navigation(call: SyntaxNode): SyntaxNode | undefined {
  const callee = named(call)[0];
  return callee?.type === 'navigation_expression' ? callee : undefined;
}

/** Kotlin: `if` and `when` are expressions; grammar without field names (positional selectors). */
export const kotlinFlow = flowSyntax({
  branches: {
    if_expression: {
      condition: '*first',
      consequence: 'type:control_structure_body',
      alternative: 'after:else',
    },
  },
  switches: { when_expression: { subject: 'type:when_subject', arms } },
  loops: {
    while_statement: { condition: '*first', body: 'type:control_structure_body' },
    do_while_statement: { body: 'type:control_structure_body' },
  },
  returns: [],
  jumps: ['jump_expression'],
  literals: {
    strings: ['string_literal'],
    stringParts: ['string_content', 'escape_sequence'],
    interpolations: ['interpolated_expression'],
    interpolatedValues: ['interpolated_identifier'],
    numbers: ['integer_literal', 'real_literal'],
    booleans: ['boolean_literal'],
  },
  binaries: [
    'additive_expression',
    'multiplicative_expression',
    'comparison_expression',
    'equality_expression',
    'conjunction_expression',
    'disjunction_expression',
  ],
  unaries: { prefix_expression: '*last' },
  parens: ['parenthesized_expression', 'when_subject'],
  // `"SELECT …".plus(name)` is `+` spelled as a call; the receiver, a String, stays as it was.
  concat: { methods: /^plus$/, inPlace: false },
  receiver: (call) => {
    const nav = navigation(call);
    return nav ? named(nav)[0] : undefined;
  },
  method: (call) => {
    const nav = navigation(call);
    const suffix = nav?.children.find((c) => c.type === 'navigation_suffix');
    return suffix ? named(suffix)[0] : undefined;
  },
});

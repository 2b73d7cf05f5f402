import type { SyntaxNode } from '../../parsing/tree';
import { unwrap } from './arms';
import { flowSyntax } from './define';
import type { SwitchArm } from './types';

/** Arms of a `switch`: `case "a", "b":` labels, `default:`; Swift's arms never fall through. */
function arms(node: SyntaxNode): SwitchArm[] {
  const out: SwitchArm[] = [];
  for (const entry of node.children) {
    if (entry.type !== 'switch_entry') continue;
    const isDefault = entry.children.some((c) => c.type === 'default_keyword');
    out.push({
      labels: isDefault
        ? 'default'
        : entry.children.filter((c) => c.type === 'switch_pattern').map((p) => unwrap(p)),
      body: entry.children.filter((c) => c.type === 'statements'),
      // Swift's rare `fallthrough` is not followed.
      ends: true,
    });
  }
  return out;
}

/** Swift: `if`/`else if`/`else`, `switch`, the ternary, `"\(x)"` interpolation, `return` as a control transfer. */
export const swiftFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'type:statements', alternative: 'after:else' },
  },
  ternaries: {
    ternary_expression: { condition: 'condition', consequence: 'if_true', alternative: 'if_false' },
  },
  // `base.appending(x)` returns a new string (`append` writes into the receiver: a mutator).
  concat: { methods: /^appending$/, inPlace: false },
  switches: { switch_statement: { subject: 'expr', arms } },
  loops: { while_statement: { condition: 'condition', body: 'type:statements' } },
  returns: [],
  jumps: ['control_transfer_statement'],
  literals: {
    strings: ['line_string_literal', 'multi_line_string_literal'],
    stringParts: ['line_str_text', 'multi_line_str_text', 'str_escaped_char'],
    // Read as themselves, so that SQLKit's `\(bind: x)` stays a bound parameter (cleanMembers).
    interpolatedValues: ['interpolated_expression'],
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
  unaries: { prefix_expression: 'target' },
  parens: [],
});

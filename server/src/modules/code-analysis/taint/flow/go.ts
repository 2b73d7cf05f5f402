import { switchArms } from './arms';
import { flowSyntax, memberCalls } from './define';

/** Go: `if init; cond {}`, expression switches (no fall-through), `a, b := x, y`. */
export const goFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  switches: {
    expression_switch_statement: {
      subject: 'value',
      arms: switchArms({ clauses: ['expression_case'], defaults: ['default_case'], fallsThrough: false }),
    },
  },
  // A `for` is the only loop; a range clause is an assignment of the iterable to its names.
  loops: { for_statement: { body: 'body' } },
  returns: ['return_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['interpreted_string_literal', 'raw_string_literal'],
    stringParts: ['interpreted_string_literal_content', 'raw_string_literal_content', 'escape_sequence'],
    numbers: ['int_literal', 'float_literal'],
    chars: ['rune_literal'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['nil'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_expression: 'operand' },
  parens: ['parenthesized_expression'],
  tuples: ['expression_list'],
  casts: { type_conversion_expression: 'operand' },
  subscripts: { index_expression: { object: 'operand', index: 'index' } },
  ...memberCalls({ member: 'selector_expression', object: 'operand', name: 'field' }),
});

import { switchArms } from './arms';
import { flowSyntax, memberCalls } from './define';

/** C and C++: statements, `switch` with fall-through, string and character literals. */
export const cFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  elses: { else_clause: '*first' },
  ternaries: {
    conditional_expression: {
      condition: 'condition',
      consequence: 'consequence',
      alternative: 'alternative',
    },
  },
  switches: {
    switch_statement: {
      subject: 'condition',
      arms: switchArms({ body: 'body', clauses: ['case_statement'], defaults: [], fallsThrough: true }),
    },
  },
  loops: {
    while_statement: { condition: 'condition', body: 'body' },
    do_statement: { body: 'body' },
    for_statement: { body: 'body' },
  },
  returns: ['return_statement'],
  exits: ['throw_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string_literal', 'concatenated_string'],
    stringParts: ['string_content', 'escape_sequence'],
    numbers: ['number_literal'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['null', 'nullptr'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_expression: 'argument' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  ...memberCalls({ member: 'field_expression', object: 'argument', name: 'field' }),
});

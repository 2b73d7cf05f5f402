import { switchArms } from './arms';
import { flowSyntax, memberCalls } from './define';

/** C#: statements, switch sections with constant patterns, interpolated strings. */
export const csharpFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  ternaries: {
    conditional_expression: {
      condition: 'condition',
      consequence: 'consequence',
      alternative: 'alternative',
    },
  },
  switches: {
    switch_statement: {
      subject: 'value',
      arms: switchArms({
        body: 'body',
        clauses: ['switch_section'],
        defaults: [],
        labels: ['constant_pattern', 'case_switch_label'],
        skip: /^(when_clause|switch_label|default_switch_label)$/,
        fallsThrough: true,
      }),
    },
  },
  loops: {
    while_statement: { condition: 'condition', body: 'body' },
    do_statement: { body: 'body' },
    for_statement: { body: 'body' },
  },
  foreach: { foreach_statement: { target: 'left', iterable: 'right', body: 'body' } },
  tries: { try_statement: { body: 'body', handlers: ['catch_clause'], finalizer: 'finally_clause' } },
  returns: ['return_statement'],
  exits: ['throw_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string_literal', 'interpolated_string_expression'],
    stringParts: ['string_literal_content', 'string_content', 'escape_sequence'],
    interpolations: ['interpolation'],
    numbers: ['integer_literal', 'real_literal'],
    chars: ['character_literal'],
    nulls: ['null_literal'],
    booleans: ['boolean_literal'],
  },
  binaries: ['binary_expression'],
  unaries: { prefix_unary_expression: '*last' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  ...memberCalls({
    member: 'member_access_expression',
    object: 'expression',
    name: 'name',
    constructions: { object_creation_expression: 'type' },
  }),
});

import { switchArms } from './arms';
import { field, flowSyntax } from './define';

/** PHP: `if`/`elseif`/`else` clauses, switch, `"…$var…"` strings, arrays. */
export const phpFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'body', alternative: 'alternative' },
    else_if_clause: { condition: 'condition', consequence: 'body', alternative: '' },
  },
  elses: { else_clause: 'body' },
  ternaries: {
    conditional_expression: { condition: 'condition', consequence: 'body', alternative: 'alternative' },
  },
  switches: {
    switch_statement: {
      subject: 'condition',
      arms: switchArms({
        body: 'body',
        clauses: ['case_statement'],
        defaults: ['default_statement'],
        fallsThrough: true,
      }),
    },
  },
  loops: {
    while_statement: { condition: 'condition', body: 'body' },
    do_statement: { body: 'body' },
    for_statement: { body: 'body' },
  },
  tries: { try_statement: { body: 'body', handlers: ['catch_clause'], finalizer: 'finally_clause' } },
  returns: ['return_statement'],
  exits: ['throw_expression', 'exit_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string', 'encapsed_string'],
    stringParts: ['string_content', 'string_value', 'escape_sequence'],
    interpolatedValues: [
      'variable_name',
      'member_access_expression',
      'subscript_expression',
      'dynamic_variable_name',
      // `"{$request->input('c')}"`: complex syntax holds any expression starting with a variable.
      'member_call_expression',
      'scoped_call_expression',
      'nullsafe_member_access_expression',
      'nullsafe_member_call_expression',
    ],
    numbers: ['integer', 'float'],
    nulls: ['null'],
    booleans: ['boolean'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_op_expression: '*last' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  receiver: (call) => (call.type === 'member_call_expression' ? field(call, 'object') : undefined),
  method: (call) => field(call, 'name') ?? field(call, 'function'),
});

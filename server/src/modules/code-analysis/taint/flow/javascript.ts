import { switchArms } from './arms';
import { flowSyntax, memberCalls } from './define';

/** JavaScript, TypeScript and TSX. */
export const javascriptFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  // `else` holds its statement (or the next `if`) without a field.
  elses: { else_clause: '*first' },
  ternaries: {
    ternary_expression: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  switches: {
    switch_statement: {
      subject: 'value',
      arms: switchArms({
        body: 'body',
        clauses: ['switch_case'],
        defaults: ['switch_default'],
        fallsThrough: true,
      }),
    },
  },
  loops: {
    while_statement: { condition: 'condition', body: 'body' },
    do_statement: { body: 'body' },
    for_statement: { body: 'body' },
  },
  foreach: { for_in_statement: { target: 'left', iterable: 'right', body: 'body' } },
  tries: { try_statement: { body: 'body', handlers: ['catch_clause'], finalizer: 'finally_clause' } },
  returns: ['return_statement'],
  exits: ['throw_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string', 'template_string'],
    stringParts: ['string_fragment', 'escape_sequence'],
    interpolations: ['template_substitution'],
    numbers: ['number'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['null', 'undefined'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_expression: 'argument' },
  parens: ['parenthesized_expression', 'non_null_expression'],
  casts: { as_expression: '*first', satisfies_expression: '*first', type_assertion: '*last' },
  subscripts: { subscript_expression: { object: 'object', index: 'index' } },
  lists: ['array'],
  dicts: { object: { pair: 'pair', key: 'key', value: 'value' } },
  dictsCarry: true,
  newCollection: /^new(Map|Set)(<.*>)?$/,
  // `s.concat(x)` and `a.concat(b)` return new values: the receiver is left as it was.
  concat: { methods: /^concat$/, inPlace: false },
  ...memberCalls({
    member: 'member_expression',
    object: 'object',
    name: 'property',
    constructions: { new_expression: 'constructor' },
  }),
});

import type { SyntaxNode } from '../../parsing/tree';
import { switchArms } from './arms';
import type { FlowSyntax } from './types';

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);

/** JavaScript, TypeScript and TSX. */
export const javascriptFlow: FlowSyntax = {
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
    chars: [],
    trues: ['true'],
    falses: ['false'],
    nulls: ['null', 'undefined'],
  },
  binaries: ['binary_expression'],
  comparisons: [],
  unaries: { unary_expression: 'argument' },
  parens: ['parenthesized_expression', 'non_null_expression'],
  casts: { as_expression: '*first', satisfies_expression: '*first', type_assertion: '*last' },
  subscripts: { subscript_expression: { object: 'object', index: 'index' } },
  lists: ['array'],
  dicts: { object: { pair: 'pair', key: 'key', value: 'value' } },
  dictsCarry: true,
  newCollection: /^new(Map|Set)(<.*>)?$/,
  typedDeclarations: {},
  receiver: (call) => {
    const fn = field(call, 'function');
    return fn?.type === 'member_expression' ? field(fn, 'object') : undefined;
  },
  method: (call) => {
    if (call.type === 'new_expression') return field(call, 'constructor');
    const fn = field(call, 'function');
    if (fn?.type === 'member_expression') return field(fn, 'property');
    return fn?.type === 'identifier' ? fn : undefined;
  },
};

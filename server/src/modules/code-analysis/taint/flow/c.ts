import type { SyntaxNode } from '../../parsing/tree';
import { switchArms } from './arms';
import type { FlowSyntax } from './types';

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);

/** C and C++: statements, `switch` with fall-through, string and character literals. */
export const cFlow: FlowSyntax = {
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
  foreach: {},
  tries: {},
  returns: ['return_statement'],
  exits: ['throw_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string_literal', 'concatenated_string'],
    stringParts: ['string_content', 'escape_sequence'],
    interpolations: [],
    numbers: ['number_literal'],
    chars: [],
    trues: ['true'],
    falses: ['false'],
    nulls: ['null', 'nullptr'],
  },
  binaries: ['binary_expression'],
  comparisons: [],
  unaries: { unary_expression: 'argument' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  subscripts: {},
  lists: [],
  dicts: {},
  newCollection: /^$/,
  typedDeclarations: {},
  receiver: (call) => {
    const fn = field(call, 'function');
    return fn?.type === 'field_expression' ? field(fn, 'argument') : undefined;
  },
  method: (call) => {
    const fn = field(call, 'function');
    if (fn?.type === 'field_expression') return field(fn, 'field');
    return fn?.type === 'identifier' ? fn : undefined;
  },
};

import type { SyntaxNode } from '../../parsing/tree';
import { switchArms } from './arms';
import type { FlowSyntax } from './types';

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);

/** C#: statements, switch sections with constant patterns, interpolated strings. */
export const csharpFlow: FlowSyntax = {
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
    trues: [],
    falses: [],
    nulls: ['null_literal'],
    booleans: ['boolean_literal'],
  },
  binaries: ['binary_expression'],
  comparisons: [],
  unaries: { prefix_unary_expression: '*last' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  subscripts: {},
  lists: [],
  dicts: {},
  newCollection: /^$/,
  typedDeclarations: {},
  receiver: (call) => {
    const fn = field(call, 'function');
    return fn?.type === 'member_access_expression' ? field(fn, 'expression') : undefined;
  },
  method: (call) => {
    if (call.type === 'object_creation_expression') return field(call, 'type');
    const fn = field(call, 'function');
    if (fn?.type === 'member_access_expression') return field(fn, 'name');
    return fn?.type === 'identifier' ? fn : undefined;
  },
};

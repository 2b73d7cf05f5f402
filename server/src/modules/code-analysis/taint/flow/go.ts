import type { SyntaxNode } from '../../parsing/tree';
import { switchArms } from './arms';
import type { FlowSyntax } from './types';

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);

/** Go: `if init; cond {}`, expression switches (no fall-through), `a, b := x, y`. */
export const goFlow: FlowSyntax = {
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  ternaries: {},
  switches: {
    expression_switch_statement: {
      subject: 'value',
      arms: switchArms({ clauses: ['expression_case'], defaults: ['default_case'], fallsThrough: false }),
    },
  },
  // A `for` is the only loop; a range clause is an assignment of the iterable to its names.
  loops: { for_statement: { body: 'body' } },
  foreach: {},
  tries: {},
  returns: ['return_statement'],
  exits: [],
  breaks: ['break_statement'],
  literals: {
    strings: ['interpreted_string_literal', 'raw_string_literal'],
    stringParts: ['interpreted_string_literal_content', 'raw_string_literal_content', 'escape_sequence'],
    interpolations: [],
    numbers: ['int_literal', 'float_literal'],
    chars: ['rune_literal'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['nil'],
  },
  binaries: ['binary_expression'],
  comparisons: [],
  unaries: { unary_expression: 'operand' },
  parens: ['parenthesized_expression'],
  tuples: ['expression_list'],
  casts: { type_conversion_expression: 'operand' },
  subscripts: { index_expression: { object: 'operand', index: 'index' } },
  lists: [],
  dicts: {},
  newCollection: /^$/,
  typedDeclarations: {},
  receiver: (call) => {
    const fn = field(call, 'function');
    return fn?.type === 'selector_expression' ? field(fn, 'operand') : undefined;
  },
  method: (call) => {
    const fn = field(call, 'function');
    if (fn?.type === 'selector_expression') return field(fn, 'field');
    return fn?.type === 'identifier' ? fn : undefined;
  },
};

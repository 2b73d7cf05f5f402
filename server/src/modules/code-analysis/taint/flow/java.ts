import type { SyntaxNode } from '../../parsing/tree';
import { field, flowSyntax } from './define';
import type { SwitchArm } from './types';

/** Arms of a `switch` block: statement groups (which fall through unless they break) and `case X ->` rules. */
function arms(node: SyntaxNode): SwitchArm[] {
  const body = field(node, 'body');
  const out: SwitchArm[] = [];
  for (const group of body?.children ?? []) {
    if (group.type !== 'switch_block_statement_group' && group.type !== 'switch_rule') continue;
    const labels = group.children.filter((c) => c.type === 'switch_label');
    const isDefault = labels.some((l) => l.children.some((c) => c.type === 'default'));
    const body = group.children.filter(
      (c) => c.named && c.type !== 'switch_label' && !/comment/.test(c.type),
    );
    out.push({
      labels: isDefault ? 'default' : labels.flatMap((l) => l.children.filter((c) => c.named)),
      body,
      ends:
        group.type === 'switch_rule' ||
        body.some((s) => /^(break_statement|return_statement|throw_statement|yield_statement)$/.test(s.type)),
    });
  }
  return out;
}

export const javaFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  ternaries: {
    ternary_expression: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
  },
  switches: {
    switch_expression: { subject: 'condition', arms },
    switch_statement: { subject: 'condition', arms },
  },
  loops: {
    while_statement: { condition: 'condition', body: 'body' },
    do_statement: { body: 'body' },
    for_statement: { body: 'body' },
  },
  foreach: { enhanced_for_statement: { target: 'name', iterable: 'value', body: 'body' } },
  tries: {
    try_statement: { body: 'body', handlers: ['catch_clause'], finalizer: 'finally_clause' },
    try_with_resources_statement: { body: 'body', handlers: ['catch_clause'], finalizer: 'finally_clause' },
  },
  returns: ['return_statement'],
  exits: ['throw_statement'],
  breaks: ['break_statement'],
  literals: {
    strings: ['string_literal'],
    stringParts: ['string_fragment', 'escape_sequence', 'multiline_string_fragment'],
    numbers: ['decimal_integer_literal', 'decimal_floating_point_literal', 'hex_integer_literal'],
    chars: ['character_literal'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['null_literal'],
  },
  binaries: ['binary_expression'],
  unaries: { unary_expression: 'operand' },
  parens: ['parenthesized_expression'],
  casts: { cast_expression: 'value' },
  subscripts: { array_access: { object: 'array', index: 'index' } },
  lists: ['array_initializer'],
  newCollection:
    /^new(java\.util\.)?(HashMap|LinkedHashMap|TreeMap|Hashtable|ConcurrentHashMap|ArrayList|LinkedList|Vector|HashSet|LinkedHashSet|TreeSet|ArrayDeque|Stack)(<.*>)?$/,
  typedDeclarations: {
    local_variable_declaration: { type: 'type', declarator: 'declarator', name: 'name' },
    field_declaration: { type: 'type', declarator: 'declarator', name: 'name' },
    formal_parameter: { type: 'type', declarator: '', name: 'name' },
  },
  // `String.concat` returns a new string: `base.concat(x)` leaves `base` as it was.
  concat: { methods: /^concat$/, inPlace: false },
  receiver: (call) => (call.type === 'method_invocation' ? field(call, 'object') : undefined),
  method: (call) => {
    if (call.type === 'method_invocation') return field(call, 'name');
    if (call.type === 'object_creation_expression') return field(call, 'type');
    return undefined;
  },
});

import type { SyntaxNode } from '../../parsing/tree';
import { field, flowSyntax, memberCalls } from './define';
import type { SwitchArm } from './types';

/** Arms of a `match`: each `case` clause's patterns (`_` or a bare capture is the default), none falls through. */
function arms(node: SyntaxNode): SwitchArm[] {
  const block = field(node, 'body');
  const out: SwitchArm[] = [];
  for (const clause of block?.children ?? []) {
    if (clause.type !== 'case_clause') continue;
    const patterns = clause.children.filter((c) => c.type === 'case_pattern');
    const labels = patterns.flatMap((p) => {
      const inner = p.children.find((c) => c.named);
      if (!inner) return [];
      return inner.type === 'union_pattern' ? inner.children.filter((c) => c.named) : [inner];
    });
    const wildcard =
      patterns.some((p) => p.children.length === 1 && p.children[0]?.type === '_') ||
      labels.some((l) => l.type === 'dotted_name' && l.children.length === 1);
    const guard = clause.children.some((c) => c.field === 'guard');
    const consequence = field(clause, 'consequence');
    out.push({
      labels: wildcard && !guard ? 'default' : labels,
      body: consequence ? [consequence] : [],
      ends: true,
    });
  }
  return out;
}

export const pythonFlow = flowSyntax({
  branches: {
    if_statement: { condition: 'condition', consequence: 'consequence', alternative: 'alternative' },
    elif_clause: { condition: 'condition', consequence: 'consequence', alternative: '' },
  },
  elses: { else_clause: 'body' },
  ternaries: { conditional_expression: 'positional' },
  switches: { match_statement: { subject: 'subject', arms } },
  loops: { while_statement: { condition: 'condition', body: 'body' } },
  foreach: { for_statement: { target: 'left', iterable: 'right', body: 'body' } },
  tries: {
    try_statement: {
      body: 'body',
      handlers: ['except_clause', 'except_group_clause'],
      finalizer: 'finally_clause',
    },
  },
  returns: ['return_statement'],
  exits: ['raise_statement'],
  literals: {
    strings: ['string', 'concatenated_string'],
    stringParts: ['string_content', 'escape_sequence'],
    interpolations: ['interpolation'],
    numbers: ['integer', 'float'],
    trues: ['true'],
    falses: ['false'],
    nulls: ['none'],
  },
  binaries: ['binary_operator', 'boolean_operator'],
  comparisons: ['comparison_operator'],
  unaries: { not_operator: 'argument', unary_operator: 'argument' },
  parens: ['parenthesized_expression'],
  subscripts: { subscript: { object: 'value', index: 'subscript' } },
  lists: ['list', 'tuple', 'expression_list'],
  dicts: { dictionary: { pair: 'pair', key: 'key', value: 'value' } },
  newCollection:
    /^(dict|list|collections\.OrderedDict|OrderedDict|collections\.defaultdict|defaultdict|(configparser\.)?(ConfigParser|RawConfigParser|SafeConfigParser))$/,
  ...memberCalls({ member: 'attribute', object: 'object', name: 'attribute' }),
});

import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from './types';

/** A node's child in the given field. */
export const field = (node: SyntaxNode, name: string): SyntaxNode | undefined =>
  node.children.find((c) => c.field === name);

/** A node's named children, comments left out. */
export const named = (node: SyntaxNode): SyntaxNode[] =>
  node.children.filter((c) => c.named && !/comment/.test(c.type));

/** What most grammars lack: an adapter names only what its language has. */
const NONE = {
  ternaries: {},
  switches: {},
  foreach: {},
  tries: {},
  exits: [],
  breaks: [],
  comparisons: [],
  unaries: {},
  casts: {},
  subscripts: {},
  lists: [],
  dicts: {},
  concat: { methods: /^$/, inPlace: false },
  newCollection: /^$/,
  typedDeclarations: {},
  receiver: () => undefined,
  method: () => undefined,
} satisfies Partial<FlowSyntax>;

const NO_LITERALS = { stringParts: [], interpolations: [], chars: [], trues: [], falses: [], nulls: [] };

type Defaulted = keyof typeof NONE;
type LiteralSpec = Partial<FlowSyntax['literals']> & Pick<FlowSyntax['literals'], 'strings' | 'numbers'>;

/** An adapter from what its language has; every other construct is absent. */
export function flowSyntax(
  spec: Omit<FlowSyntax, Defaulted | 'literals'> &
    Partial<Pick<FlowSyntax, Defaulted>> & { literals: LiteralSpec },
): FlowSyntax {
  return { ...NONE, ...spec, literals: { ...NO_LITERALS, ...spec.literals } };
}

/**
 * `receiver` and `method` of a language whose calls hold their callee in a field (`function`), a member access
 * (`a.b`) naming the object and the member, or a plain identifier; `constructions`: object creations
 * (`new T(…)`) and the field naming their type.
 */
export function memberCalls(spec: {
  member: string;
  object: string;
  name: string;
  constructions?: Record<string, string>;
}): Pick<FlowSyntax, 'receiver' | 'method'> {
  return {
    receiver: (call) => {
      const fn = field(call, 'function');
      return fn?.type === spec.member ? field(fn, spec.object) : undefined;
    },
    method: (call) => {
      const made = spec.constructions?.[call.type];
      if (made) return field(call, made);
      const fn = field(call, 'function');
      if (fn?.type === spec.member) return field(fn, spec.name);
      return fn?.type === 'identifier' ? fn : undefined;
    },
  };
}

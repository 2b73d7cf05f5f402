import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export interface QueryLimits {
  /** Deepest nesting of fields (fragments expanded; `ofType` links are not counted, see below). */
  maxDepth: number;
  /** Estimated work: every field costs 1, multiplied by the `first` of the lists above it. */
  maxCost: number;
  /** `__schema` and `__type` selections (aliases and fragments included): each answers a whole tree. */
  maxIntrospectionRoots: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 10, maxCost: 5_000, maxIntrospectionRoots: 5 };

/** Introspection entry points: one of them answers up to the whole schema, whatever its cost estimate says. */
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

/**
 * Tokens a document may hold. GraphiQL's introspection query has about 300 and the dashboard's documents
 * fewer; the bound keeps parsing and validation (some of GraphQL's rules compare fields pairwise) cheap.
 */
export const MAX_TOKENS = 5_000;

/** The schema is read-only: a mutation or subscription is bad input, refused before anything runs. */
export function queryOnlyRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (node.operation === 'query') return;
      context.reportError(
        new GraphQLError(`This API is read-only: ${node.operation} operations are not supported.`, {
          nodes: [node],
          extensions: { code: 'BAD_USER_INPUT' },
        }),
      );
    },
  };
}

interface Measure {
  depth: number;
  cost: number;
  introspection: number;
}

function measure(
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  multiplier: number,
  seen: Set<string>,
): Measure {
  let depth = 0;
  let cost = 0;
  let introspection = 0;
  for (const sel of set.selections) {
    let child: Measure = { depth: 0, cost: 0, introspection: 0 };
    if (sel.kind === Kind.FIELD) {
      const first = sel.arguments?.find((a) => a.name.value === 'first');
      // A `first` given as a variable is priced at the largest page a list field accepts.
      const factor = !first
        ? 1
        : first.value.kind === Kind.INT
          ? Math.max(1, Number(first.value.value))
          : 100;
      const inner = sel.selectionSet
        ? measure(sel.selectionSet, fragments, multiplier * factor, seen)
        : { depth: 0, cost: 0, introspection: 0 };
      const name = sel.name.value;
      child = {
        // `ofType` unwraps one list or non-null: the chain ends with the schema's wrapping (GraphiQL asks
        // for 7 levels of it), so it adds no work and does not count as depth.
        depth: inner.depth + (name === 'ofType' ? 0 : 1),
        cost: inner.cost + multiplier,
        introspection: inner.introspection + (INTROSPECTION_ROOTS.has(name) ? 1 : 0),
      };
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      child = measure(sel.selectionSet, fragments, multiplier, seen);
    } else {
      const name = sel.name.value;
      const fragment = fragments.get(name);
      // A fragment spread inside itself is refused by GraphQL's own rules; never loop on it here.
      if (fragment && !seen.has(name)) {
        child = measure(fragment.selectionSet, fragments, multiplier, new Set([...seen, name]));
      }
    }
    depth = Math.max(depth, child.depth);
    cost += child.cost;
    introspection += child.introspection;
  }
  return { depth, cost, introspection };
}

/** A validation rule refusing operations deeper or costlier than the limits, before anything runs. */
export function queryLimitsRule(limits: QueryLimits) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    return {
      OperationDefinition(node) {
        const { depth, cost, introspection } = measure(node.selectionSet, fragments, 1, new Set());
        if (introspection > limits.maxIntrospectionRoots) {
          context.reportError(
            new GraphQLError(
              `The query selects __schema or __type ${introspection} times; at most ${limits.maxIntrospectionRoots} are allowed.`,
              { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } },
            ),
          );
        }
        if (depth > limits.maxDepth) {
          context.reportError(
            new GraphQLError(`The query is ${depth} levels deep; at most ${limits.maxDepth} are allowed.`, {
              nodes: [node],
              extensions: { code: 'BAD_USER_INPUT' },
            }),
          );
        }
        if (cost > limits.maxCost) {
          context.reportError(
            new GraphQLError(`The query costs ${cost}; at most ${limits.maxCost} is allowed.`, {
              nodes: [node],
              extensions: { code: 'BAD_USER_INPUT' },
            }),
          );
        }
      },
    };
  };
}

import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export interface QueryLimits {
  /** Deepest nesting of fields (fragments expanded). */
  maxDepth: number;
  /** Estimated work: every field costs 1, multiplied by the `first` of the lists above it. */
  maxCost: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 10, maxCost: 5_000 };

interface Measure {
  depth: number;
  cost: number;
}

function measure(
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  multiplier: number,
  seen: Set<string>,
): Measure {
  let depth = 0;
  let cost = 0;
  for (const sel of set.selections) {
    let child: Measure = { depth: 0, cost: 0 };
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
        : { depth: 0, cost: 0 };
      child = { depth: inner.depth + 1, cost: inner.cost + multiplier };
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
  }
  return { depth, cost };
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
        const { depth, cost } = measure(node.selectionSet, fragments, 1, new Set());
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

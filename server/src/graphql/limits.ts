import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export interface QueryLimits {
  /** Deepest nesting of fields (fragments expanded; `ofType` links are not counted, see below). */
  maxDepth: number;
  /**
   * Estimated work: every field costs 1 (those that read the database their `FIELD_COSTS` price), multiplied by
   * the `first` of the lists above it; every aliased selection counts, since each alias runs on its own.
   */
  maxCost: number;
  /** `__schema` and `__type` selections (aliases and fragments included): each answers a whole tree. */
  maxIntrospectionRoots: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 10, maxCost: 5_000, maxIntrospectionRoots: 5 };

/**
 * Fields that read the database, priced by what they do (every other field costs 1: it reads what its parent
 * already holds). One aggregate query over the usage rollups is 100: so 5,000 allows about a dozen copies of
 * the dashboard's overview (four queries) in one request, and not 200 aliased summaries.
 */
export const FIELD_COSTS: Readonly<Record<string, number>> = {
  /** Reads the account's key when `keyId` is given (to log a foreign one). */
  'Query.usage': 10,
  /** One read of the account's keys. */
  'Query.apiKeys': 10,
  /** One read of the organisation's members, with a count of each one's keys. */
  'Query.members': 10,
  /** One read of the budgets, one of each budget's period. */
  'Query.budgets': 20,
  /** One indexed page of alerts. */
  'Query.budgetAlerts': 10,
  /** One indexed page of deliveries. */
  'Query.webhookDeliveries': 10,
  /** Two aggregate queries (the period and the previous one) and the allowance view. */
  'Usage.summary': 200,
  /** One aggregate query, grouped by bucket. */
  'Usage.timeseries': 100,
  /** One aggregate query, grouped by route. */
  'Usage.endpoints': 100,
  /** One aggregate query over the deployment rollups, grouped by model and deployment (each group's histogram). */
  'Usage.deployments': 100,
  /** One page of errors through a partial index (its rows priced by `first` below it). */
  'Usage.recentErrors': 50,
  /** An index range scan of up to 10,000 errors, grouped (its groups priced by `first` below it). */
  'Usage.errorGroups': 200,
  /** The allowance view: in memory, read from the database at most once a second. */
  'Viewer.allowance': 10,
  /** One indexed read of the account's keys. */
  'Viewer.sampleData': 10,
  /** One page of the audit log through its (account, created_at, id) index (its rows priced by `first` below it). */
  'Viewer.auditLog': 50,
};

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

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
}

/**
 * A type whose fields can be selected, told apart by shape: Apollo may load another copy of `graphql` than this
 * module does, and graphql-js's `isObjectType` and the like throw on the other copy's types.
 */
interface FieldsType {
  name: string;
  getFields(): Record<string, GraphQLField<unknown, unknown>>;
}

function withFields(type: unknown): FieldsType | undefined {
  return typeof type === 'object' && type !== null && 'getFields' in type ? (type as FieldsType) : undefined;
}

/** The type a fragment's condition names, if it has fields (unions have none to price). */
function conditionType(schema: GraphQLSchema, name: string): FieldsType | undefined {
  return withFields(schema.getType(name));
}

/** The price of selecting `name` on `parent` once, and the type its selections are made on. */
function fieldOf(
  parent: FieldsType | undefined,
  name: string,
): { price: number; type: FieldsType | undefined } {
  const field = parent?.getFields()[name];
  let type: unknown = field?.type;
  // Unwraps lists and non-nulls down to the named type.
  while (typeof type === 'object' && type !== null && 'ofType' in type) type = type.ofType;
  return { price: (parent && FIELD_COSTS[`${parent.name}.${name}`]) ?? 1, type: withFields(type) };
}

function measure(
  set: SelectionSetNode,
  walk: Walk,
  parent: FieldsType | undefined,
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
      const name = sel.name.value;
      const field = fieldOf(parent, name);
      const inner = sel.selectionSet
        ? measure(sel.selectionSet, walk, field.type, multiplier * factor, seen)
        : { depth: 0, cost: 0, introspection: 0 };
      child = {
        // `ofType` unwraps one list or non-null: the chain ends with the schema's wrapping (GraphiQL asks
        // for 7 levels of it), so it adds no work and does not count as depth.
        depth: inner.depth + (name === 'ofType' ? 0 : 1),
        cost: inner.cost + multiplier * field.price,
        introspection: inner.introspection + (INTROSPECTION_ROOTS.has(name) ? 1 : 0),
      };
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const type = sel.typeCondition ? conditionType(walk.schema, sel.typeCondition.name.value) : parent;
      child = measure(sel.selectionSet, walk, type, multiplier, seen);
    } else {
      const name = sel.name.value;
      const fragment = walk.fragments.get(name);
      // A fragment spread inside itself is refused by GraphQL's own rules; never loop on it here.
      if (fragment && !seen.has(name)) {
        const type = conditionType(walk.schema, fragment.typeCondition.name.value);
        child = measure(fragment.selectionSet, walk, type, multiplier, new Set([...seen, name]));
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
        const schema = context.getSchema();
        const root = withFields(schema.getQueryType());
        const { depth, cost, introspection } = measure(
          node.selectionSet,
          { schema, fragments },
          node.operation === 'query' ? root : undefined,
          1,
          new Set(),
        );
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

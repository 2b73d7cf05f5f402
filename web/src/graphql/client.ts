/**
 * A GraphQL document with its result and variables types attached. The types are written by hand next to
 * each document; graphql/documents.test.ts validates every document against the server's schema, so a
 * field renamed on the server fails the web tests rather than the dashboard in production.
 */
export interface TypedDocument<TResult, TVariables> {
  readonly source: string;
  readonly operationName: string;
  /** Never set: carries the types. */
  readonly __types?: [TResult, TVariables];
}

export function gql<TResult, TVariables = Record<string, never>>(
  operationName: string,
  source: string,
): TypedDocument<TResult, TVariables> {
  return { source, operationName };
}

/** A GraphQL response with errors; `code` is the first error's `extensions.code` (UNAUTHENTICATED, …). */
export class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly status: number,
  ) {
    super(message);
  }
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
  error?: { message?: string };
}

/** POSTs to /graphql with the session cookie (same origin) and returns `data` or throws. */
export async function gqlRequest<TResult, TVariables>(
  doc: TypedDocument<TResult, TVariables>,
  variables: TVariables,
  signal?: AbortSignal,
): Promise<TResult> {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: doc.source, operationName: doc.operationName, variables }),
    ...(signal && { signal }),
  });
  let body: GraphQLResponse<TResult>;
  try {
    body = (await res.json()) as GraphQLResponse<TResult>;
  } catch {
    throw new GraphQLRequestError(`The usage service answered HTTP ${res.status}.`, null, res.status);
  }
  const first = body.errors?.[0];
  if (first) throw new GraphQLRequestError(first.message, first.extensions?.code ?? null, res.status);
  if (body.error) throw new GraphQLRequestError(body.error.message ?? `HTTP ${res.status}`, null, res.status);
  if (!body.data) throw new GraphQLRequestError('The usage service returned no data.', null, res.status);
  return body.data;
}

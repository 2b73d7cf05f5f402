import { HeaderMap } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { asUnavailable, type ErrorKind, isServiceError, type ServiceError } from '../errors';
import { errorHeaders } from '../http/error-headers';
import type { Logger } from '../logger';

export type GraphqlCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

function codeOf(kind: ErrorKind): GraphqlCode {
  switch (kind) {
    case 'invalid_request':
    case 'payload_too_large':
    case 'request_timeout':
    case 'unsupported_media_type':
    case 'method_not_allowed':
    case 'conflict':
      return 'BAD_USER_INPUT';
    case 'authentication':
      return 'UNAUTHENTICATED';
    case 'permission':
      return 'FORBIDDEN';
    case 'not_found':
      return 'NOT_FOUND';
    case 'rate_limited':
    case 'insufficient_quota':
      return 'RATE_LIMITED';
    case 'timeout':
    case 'upstream':
    case 'unavailable':
      return 'SERVICE_UNAVAILABLE';
    case 'internal':
      return 'INTERNAL_SERVER_ERROR';
    default: {
      const unreachable: never = kind;
      throw new Error(`unmapped error kind ${String(unreachable)}`);
    }
  }
}

const HTTP_STATUS: Partial<Record<GraphqlCode, number>> = {
  UNAUTHENTICATED: 401,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * Duck-typed on purpose: under a bundler graphql's ESM and CommonJS builds can both be loaded (Apollo gets
 * one, this code the other), and `instanceof GraphQLError` then fails across them.
 */
function isGraphQLErrorLike(value: unknown): value is GraphQLError {
  // Apollo's own subclasses (ValidationError, SyntaxError…) rename themselves: look at the shape.
  return (
    value instanceof Error &&
    typeof (value as { extensions?: unknown }).extensions === 'object' &&
    'locations' in value
  );
}

/** A module error as GraphQL reports it: its message, `extensions.code` and the parameter at fault. */
export function toGraphQLError(thrown: unknown): GraphQLError {
  if (isGraphQLErrorLike(thrown)) return thrown;
  const err = asUnavailable(thrown) ?? thrown;
  if (isServiceError(err)) {
    const code = codeOf(err.kind);
    const status = HTTP_STATUS[code];
    // Apollo answers with the status and headers in `extensions.http` (and strips them from the body):
    // a 503 carries its retry advice as on REST.
    const http = status && { status, headers: new HeaderMap(Object.entries(errorHeaders(err))) };
    return new GraphQLError(err.message, {
      extensions: { code, ...(err.param && { param: err.param }), ...(http && { http }) },
    });
  }
  // Kept as the cause so that formatError logs it; the caller sees only the generic message.
  const cause = err instanceof Error ? err : new Error(String(err));
  return new GraphQLError('Internal server error', {
    originalError: cause,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

/** The innermost error: through GraphQL's wrappers (located errors, "Context creation failed") to the cause. */
function innermost(error: unknown): unknown {
  let current = error;
  while (isGraphQLErrorLike(current) && current.originalError) current = current.originalError;
  return current;
}

/**
 * The first error of a request that a dependency being unreachable explains (the database down or stalled),
 * as a ServiceError: a resolver that let such an error through makes the whole answer a 503, as on REST.
 */
export function unavailableIn(errors: readonly unknown[]): ServiceError | undefined {
  for (const error of errors) {
    const inner = innermost(error);
    const found = isServiceError(inner) ? inner : asUnavailable(inner);
    if (found?.kind === 'unavailable') return found;
  }
  return undefined;
}

/**
 * The last word on what leaves the server: our own GraphQL errors and GraphQL's (syntax, validation) keep
 * their message and code, module errors are mapped, anything else becomes a generic internal error with
 * the cause logged, never sent. Stack traces never leave.
 */
export function formatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const where = {
      ...(formatted.locations && { locations: formatted.locations }),
      ...(formatted.path && { path: formatted.path }),
    };
    const inner = innermost(error);
    const unavailable = asUnavailable(inner);
    const known = unavailable
      ? toGraphQLError(unavailable)
      : isServiceError(inner)
        ? toGraphQLError(inner)
        : isGraphQLErrorLike(inner)
          ? inner
          : null;
    if (!known) {
      logger.error({ err: inner, path: formatted.path }, 'graphql request failed');
      return { message: 'Internal server error', ...where, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
    const code = known.extensions?.code ?? formatted.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
    const param = known.extensions?.param;
    return { message: known.message, ...where, extensions: { code, ...(param !== undefined && { param }) } };
  };
}

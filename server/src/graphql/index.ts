import { readFileSync } from 'node:fs';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { errorHeaders } from '../http/error-headers';
import { meter } from '../http/metering';
import { contextOf } from '../http/request-context';
import { serverPath } from '../lib/paths';
import type { Services } from '../services';
import { type GraphqlContext, graphqlContext } from './context';
import { formatError, unavailableIn } from './errors';
import { DEFAULT_LIMITS, MAX_TOKENS, queryLimitsRule, queryOnlyRule } from './limits';
import { limitNesting } from './nesting';
import { accountResolvers } from './resolvers/account';
import { auditResolvers } from './resolvers/audit';
import { budgetResolvers } from './resolvers/budgets';
import { DateTime } from './resolvers/scalars';
import { usageResolvers } from './resolvers/usage';

/** The schema's SDL, also read by the dashboard's code generation. */
export const SCHEMA_FILE = serverPath('src/graphql/schema.graphql');

export function createGraphqlServer(services: Services): ApolloServer<GraphqlContext> {
  return new ApolloServer<GraphqlContext>({
    typeDefs: readFileSync(SCHEMA_FILE, 'utf8'),
    resolvers: [{ DateTime }, accountResolvers, auditResolvers, budgetResolvers, usageResolvers],
    // Kept on: the dashboard ships a GraphiQL explorer. Only authenticated callers reach any of it.
    introspection: true,
    includeStacktraceInErrorResponses: false,
    validationRules: [queryOnlyRule, queryLimitsRule(DEFAULT_LIMITS)],
    maxRecursiveSelections: true,
    parseOptions: { maxTokens: MAX_TOKENS },
    // No client sends persisted-query hashes; off, a hash is refused plainly instead of filling a cache.
    persistedQueries: false,
    stopOnTerminationSignals: false,
    formatError: formatError(services.ctx.logger),
    plugins: [
      {
        // A failed call carries its first error into usage and logs (GraphQL itself answers 200).
        async requestDidStart() {
          return {
            async didEncounterErrors({ contextValue, errors, response }) {
              const first = errors[0];
              if (!first) return;
              const unavailable = unavailableIn(errors);
              if (unavailable) {
                response.http.status = 503;
                for (const [name, value] of Object.entries(errorHeaders(unavailable)))
                  response.http.headers.set(name, value);
              }
              contextValue.request.usage.failed({
                type: 'graphql_error',
                code: String(first.extensions?.code ?? 'INTERNAL_SERVER_ERROR'),
                message: first.message,
              });
            },
          };
        },
      },
    ],
  });
}

/** POST/GET /graphql: metered (for API keys), body-limited JSON, then Apollo. */
export function mountGraphql(app: Express, services: Services): void {
  const server = createGraphqlServer(services);
  // createApp is synchronous; requests arriving before start completes wait for it inside the middleware.
  server.startInBackgroundHandlingStartupErrorsByLoggingAndFailingAllRequests();
  app.use(
    '/graphql',
    tagRoute,
    meter({
      usage: services.usage,
      metrics: services.metrics,
      anonymous: 'ignore',
      tracing: services.tracing,
    }),
    requireJsonPost,
    express.json({ limit: services.ctx.config.bodyLimitBytes }),
    limitNesting,
    expressMiddleware(server, { context: graphqlContext(services) }),
    graphqlTransportError,
  );
}

const tagRoute: RequestHandler = (_req, res, next) => {
  contextOf(res).route = '/graphql';
  next();
};

function graphqlErrorBody(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

/** Apollo needs a parsed body: a POST of any other type is refused here, in GraphQL's error shape. */
const requireJsonPost: RequestHandler = (req, res, next) => {
  if (req.method === 'POST' && !req.is('application/json')) {
    res
      .status(415)
      .json(graphqlErrorBody('POST /graphql needs Content-Type: application/json.', 'BAD_REQUEST'));
    return;
  }
  next();
};

/** Bad JSON or a body over the limit, in GraphQL's error shape rather than the REST one. */
const graphqlTransportError: ErrorRequestHandler = (err, _req, res, next) => {
  const status = (err as { status?: number }).status;
  if (res.headersSent || typeof status !== 'number' || status < 400 || status >= 500) {
    next(err);
    return;
  }
  const message =
    status === 413 ? 'The request body is larger than the limit.' : 'The request body is not valid JSON.';
  res.status(status).json(graphqlErrorBody(message, status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST'));
};

import type { KeyScope } from '@tessera/shared';
import type { Express, Request, RequestHandler, Response } from 'express';
import { ServiceError } from '../errors';
import {
  type AuthenticatedContext,
  contextOf,
  isAuthenticated,
  type RouteOutcome,
} from '../http/request-context';
import type { JsonBounds } from '../lib/json-shape';
import { requireScope } from '../modules/keys';
import type { DirectRoute } from './direct';
import { jsonBody } from './middleware/json-body';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RestRoute {
  method: Method;
  /** Express path; also the template recorded in logs and usage (`/v1/models/:id`). */
  path: string;
  /** Whether the route reads a JSON body. */
  body?: boolean;
  /** The route's own body limit, in bytes, instead of BODY_LIMIT_BYTES. */
  bodyLimit?: number;
  /** The key scope the route needs: a key limited to other endpoints gets 403 `permission_denied`. */
  scope: KeyScope;
  /**
   * Answers the request. A handler that called a model returns its outcome (what the call consumed, and the error
   * if it failed), which the pipeline records for metering and then throws to the error mapper; the others return
   * nothing.
   */
  handler: (
    req: Request,
    res: Response,
    context: AuthenticatedContext,
  ) => Promise<RouteOutcome> | Promise<void> | RouteOutcome | void;
}

export interface Pipeline {
  /** Runs right after the route tag, before authentication: metering sees refusals too. */
  meter?: RequestHandler;
  /** Runs first for every authenticated route: key verification. */
  authenticate: RequestHandler;
  /** Runs after authentication: rate limits, allowance headers. */
  afterAuth: RequestHandler[];
  jsonBody: RequestHandler;
  /** For routes with a body limit of their own: how long their body may take to arrive, and its bounds. */
  bodyTimeoutMs: number;
  bodyBounds: JsonBounds;
}

/**
 * Registers authenticated REST routes, each with the same pipeline, and a 405 for the wrong method. Returns the
 * routes without path parameters with their handler chains, for the direct dispatch of the same chains.
 */
export function registerRoutes(app: Express, routes: RestRoute[], pipeline: Pipeline): DirectRoute[] {
  const methodsByPath = new Map<string, Set<string>>();
  const direct: DirectRoute[] = [];
  for (const route of routes) {
    const tag: RequestHandler = (_req, res, next) => {
      contextOf(res).route = route.path;
      next();
    };
    const run: RequestHandler = async (req, res) => {
      const context = contextOf(res);
      if (!isAuthenticated(context)) throw new Error('authenticated route reached without a principal');
      context.handlerRunning = true;
      try {
        const outcome = await route.handler(req, res, context);
        if (outcome) {
          // The one place a request's model and tokens enter its usage record.
          context.usage.consumed(outcome.usage);
          if (!outcome.ok) throw outcome.error;
        }
      } finally {
        // Metering waits for this: an aborted stream's final token count is known only now.
        context.handlerEnded();
      }
    };
    // Right after authentication, before the rate limit and the body: a refused call costs nothing more.
    const scoped: RequestHandler = (_req, res, next) => {
      const principal = contextOf(res).principal;
      if (principal?.access) requireScope(principal, route.scope);
      next();
    };
    const chain = [
      tag,
      ...(pipeline.meter ? [pipeline.meter] : []),
      pipeline.authenticate,
      scoped,
      ...pipeline.afterAuth,
    ];
    if (route.body)
      chain.push(
        route.bodyLimit === undefined
          ? pipeline.jsonBody
          : jsonBody(route.bodyLimit, pipeline.bodyTimeoutMs, pipeline.bodyBounds),
      );
    app[route.method](route.path, ...chain, run);
    if (!route.path.includes(':'))
      direct.push({ method: route.method, path: route.path, chain: [...chain, run] });
    const set = methodsByPath.get(route.path) ?? new Set<string>();
    set.add(route.method.toUpperCase());
    methodsByPath.set(route.path, set);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].join(', ');
    app.all(path, (req, res, next) => {
      contextOf(res).route = path;
      res.setHeader('allow', allow);
      next(
        new ServiceError(
          'method_not_allowed',
          `Method ${req.method} is not allowed on ${path}; use ${allow}.`,
          {
            code: 'method_not_allowed',
          },
        ),
      );
    });
  }
  return direct;
}

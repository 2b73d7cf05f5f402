import { existsSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { ServiceError } from './errors';
import { mountGraphql } from './graphql';
import { RequestContext } from './http/request-context';
import { serverPath } from './lib/paths';
import { metricsHandler } from './metrics/endpoint';
import { mountOpenApi } from './openapi';
import { checkReadiness } from './readiness';
import { mountRest } from './rest';
import { mountAuditExport } from './rest/audit-export';
import { directDispatch, expressServerClasses } from './rest/direct';
import { accessLog } from './rest/middleware/access-log';
import { apiCors, corsHeaders } from './rest/middleware/cors';
import { requestContext } from './rest/middleware/request-id';
import {
  apiSecurityHeaders,
  securityHeaders,
  securityHeadersByPath,
} from './rest/middleware/security-headers';
import { sendError } from './rest/middleware/send-error';
import { mountPlayground } from './rest/playground';
import type { Services } from './services';
import { appRouter } from './trpc/router';
import { contextFactory } from './trpc/trpc';

export const WEB_DIST = serverPath('../web/dist');

export interface AppOptions {
  /** Folder of the built SPA; served when it exists. */
  webDist?: string;
}

export interface App {
  app: Express;
  /** What the HTTP server calls: the direct dispatch for the public API's fixed paths, Express for the rest. */
  listener: RequestListener;
  /** Options for the HTTP server: request and response classes with Express's prototypes. */
  serverOptions: ServerOptions;
}

export function createApp(services: Services, options: AppOptions = {}): App {
  const { logger, config, clock } = services.ctx;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);

  // Every request passes these first, through Express or the direct dispatch (whose routes are all the API's).
  const prelude = [requestContext(clock), accessLog(logger)];
  const apiHeaders = apiSecurityHeaders();
  const apiCorsHeaders = corsHeaders(config.corsOrigins);
  const documentHeaders = securityHeaders({
    contentSecurityPolicy: {
      directives: { 'script-src': ["'self'"], 'connect-src': ["'self'"], 'img-src': ["'self'", 'data:'] },
    },
    crossOriginEmbedderPolicy: false,
  });
  for (const handler of prelude) app.use(handler);
  app.use(securityHeadersByPath(documentHeaders, apiHeaders));
  // Browsers' calls to the public API; preflights are answered here, before any route's key, limit or 405.
  app.use(apiCors(config.corsOrigins));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    // While shutting down, say so at once: the load balancer stops sending before in-flight work ends.
    if (req.app.locals.draining === true) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const readiness = await checkReadiness(services);
    res.status(readiness.status === 'unavailable' ? 503 : 200).json(readiness);
  });

  // Without a token, /metrics is on the metrics listener only (server.ts): here it would be a 404.
  if (config.metrics.token !== undefined)
    app.get('/metrics', metricsHandler(services.metrics, config.metrics.token));
  mountOpenApi(app);
  const direct = mountRest(app, services);
  mountPlayground(app, services);
  mountAuditExport(app, services);
  mountGraphql(app, services);

  app.use(
    '/trpc',
    createExpressMiddleware({
      router: appRouter,
      createContext: contextFactory(services),
      maxBodySize: config.bodyLimitBytes,
    }),
  );

  const webDist = options.webDist ?? WEB_DIST;
  if (existsSync(webDist)) {
    app.use(express.static(webDist, { index: false, maxAge: '1h' }));
    app.get(/^\/(?!v1\/|api\/|trpc\/|graphql|metrics|healthz|readyz).*/, (req, res, next) => {
      if (!req.accepts('html')) {
        next();
        return;
      }
      res.sendFile('index.html', { root: webDist, maxAge: 0 });
    });
  }

  const onError = errorHandler(services);
  app.use(notFound);
  app.use(onError);
  const dispatch = directDispatch(
    app,
    direct.map((route) => ({ ...route, chain: [...prelude, apiHeaders, apiCorsHeaders, ...route.chain] })),
    onError,
  );
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!dispatch(req, res)) app(req, res);
  };
  return { app, listener, serverOptions: expressServerClasses(app) };
}

const notFound: RequestHandler = (req, _res, next) => {
  next(
    new ServiceError('not_found', `Unknown request URL: ${req.method} ${req.path}. Please check the URL.`, {
      code: 'unknown_url',
    }),
  );
};

function errorHandler(services: Services): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    let mapped: unknown = err;
    const status =
      (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    if (!(err instanceof ServiceError) && typeof status === 'number' && status >= 400 && status < 500) {
      // Errors raised by Express itself (a malformed URL, for example) are the client's.
      mapped = new ServiceError(
        'invalid_request',
        `The request could not be processed: ${(err as Error).message}.`,
        {
          code: 'invalid_request',
        },
      );
    }
    // Every request has its context from the first middleware on; this is for an error raised before it.
    res.locals.context ??= new RequestContext('unknown', performance.now(), services.ctx.clock);
    sendError(res, mapped, services.ctx.logger);
  };
}

import type { Express } from 'express';
import { meter } from '../http/metering';
import type { Services } from '../services';
import { codeAnalyzeRoutes } from './api/code-analyze';
import { documentRoutes } from './api/documents';
import { searchRoutes } from './api/search';
import type { DirectRoute } from './direct';
import { authenticate } from './middleware/authenticate';
import { jsonBody } from './middleware/json-body';
import { rateLimit } from './middleware/rate-limit';
import { type RestRoute, registerRoutes } from './routes';
import { chatRoutes } from './v1/chat';
import { modelRoutes } from './v1/models';

/** Every authenticated REST route of the public API, under /v1 and /api. */
export function restRoutes(services: Services): RestRoute[] {
  return [
    ...modelRoutes(services),
    ...chatRoutes(services),
    ...documentRoutes(services),
    ...searchRoutes(services),
    ...codeAnalyzeRoutes(services),
  ];
}

/** Mounts the REST routes on the app; returns those the direct dispatch serves (see direct.ts). */
export function mountRest(app: Express, services: Services): DirectRoute[] {
  return registerRoutes(app, restRoutes(services), {
    meter: meter({ usage: services.usage, metrics: services.metrics, clock: services.ctx.clock }),
    authenticate: authenticate({
      keys: services.keys,
      lastUsed: services.lastUsed,
      clock: services.ctx.clock,
    }),
    afterAuth: [
      rateLimit({
        limiter: services.rateLimiter,
        allowance: services.allowance,
        clock: services.ctx.clock,
        logger: services.ctx.logger,
      }),
    ],
    jsonBody: jsonBody(
      services.ctx.config.bodyLimitBytes,
      services.ctx.config.bodyTimeoutMs,
      services.ctx.config.bodyBounds,
    ),
    bodyTimeoutMs: services.ctx.config.bodyTimeoutMs,
    bodyBounds: services.ctx.config.bodyBounds,
  });
}

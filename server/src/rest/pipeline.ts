import type { RequestHandler } from 'express';
import { meter } from '../http/metering';
import type { Services } from '../services';
import { jsonBody } from './middleware/json-body';
import { rateLimit } from './middleware/rate-limit';
import type { Pipeline } from './routes';

/**
 * The middleware every metered route runs (routes.ts registerRoutes): metering, the caller's authentication (a key
 * for the public API, the session for the playground), rate limits and allowance, the JSON body within its bounds.
 */
export function meteredPipeline(services: Services, authenticate: RequestHandler): Pipeline {
  const { config, clock, logger } = services.ctx;
  return {
    meter: meter({
      usage: services.usage,
      metrics: services.metrics,
      tracing: services.tracing,
      prices: services.catalogue.prices,
    }),
    authenticate,
    afterAuth: [rateLimit({ limiter: services.rateLimiter, allowance: services.allowance, clock, logger })],
    jsonBody: jsonBody(config.bodyLimitBytes, config.bodyTimeoutMs, config.bodyBounds),
    bodyTimeoutMs: config.bodyTimeoutMs,
    bodyBounds: config.bodyBounds,
  };
}

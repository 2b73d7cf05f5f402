import type { Express } from 'express';
import type { Services } from '../services';
import { codeAnalyzeRoutes } from './api/code-analyze';
import { documentRoutes } from './api/documents';
import { searchRoutes } from './api/search';
import type { DirectRoute } from './direct';
import { authenticate } from './middleware/authenticate';
import { meteredPipeline } from './pipeline';
import { type RestRoute, registerRoutes } from './routes';
import { chatRoutes } from './v1/chat';
import { embeddingRoutes } from './v1/embeddings';
import { modelRoutes } from './v1/models';
import { responseRoutes } from './v1/responses';

/** Every authenticated REST route of the public API, under /v1 and /api. */
export function restRoutes(services: Services): RestRoute[] {
  return [
    ...modelRoutes(services),
    ...chatRoutes(services),
    ...embeddingRoutes(services),
    ...responseRoutes(services),
    ...documentRoutes(services),
    ...searchRoutes(services),
    ...codeAnalyzeRoutes(services),
  ];
}

/** Mounts the REST routes on the app; returns those the direct dispatch serves (see direct.ts). */
export function mountRest(app: Express, services: Services): DirectRoute[] {
  return registerRoutes(
    app,
    restRoutes(services),
    meteredPipeline(services, authenticate({ keys: services.keys, lastUsed: services.lastUsed })),
  );
}

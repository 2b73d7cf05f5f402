import type { Express } from 'express';
import { buildOpenApiDocument } from './document';
import { renderReferencePage } from './reference-page';

/** `/openapi.json` and the human reference at `/docs`; both public, built once at start-up. */
export function mountOpenApi(app: Express): void {
  const doc = buildOpenApiDocument();
  const page = renderReferencePage(doc);
  app.get('/openapi.json', (_req, res) => {
    res.json(doc);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
}

describe('/openapi.json and /docs', () => {
  it('documents every registered REST route, with the error body on every error status', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    for (const route of restRoutes(server.services)) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method];
      expect(op, `${route.method.toUpperCase()} ${route.path} is documented`).toBeDefined();
      for (const [status, response] of Object.entries(op?.responses ?? {})) {
        if (Number(status) >= 400)
          expect(JSON.stringify(response)).toContain('#/components/schemas/ErrorBody');
      }
    }
    expect(doc.components.schemas.ErrorBody).toMatchObject({ type: 'object', required: ['error'] });
  });

  it('serves a self-contained reference page', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('/v1/models');
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
  });
});

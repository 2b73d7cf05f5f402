import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger';
import { jsonBody } from './json-body';
import { requestId } from './request-id';
import { sendError } from './send-error';

// The body parser in a bare app; the full server runs the same middleware on every POST route.
const app = express();
app.use(requestId);
app.post('/echo', jsonBody(1024), (req, res) => {
  res.json({ got: req.body ?? null });
});
app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
  sendError(res, err, createLogger('silent'));
});

let url: string;
let server: ReturnType<typeof app.listen>;
beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
});
afterAll(() => {
  server.close();
});

async function post(body: string, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('jsonBody', () => {
  it('parses JSON objects', async () => {
    expect(await post('{"a":1}')).toEqual({ status: 200, body: { got: { a: 1 } } });
  });

  it('bad JSON: 400 invalid_json naming the problem', async () => {
    const r = await post('{"a":');
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('invalid_json');
    expect(r.body.error?.message).toMatch(/could not parse the JSON body/);
  });

  it('a bare JSON primitive is refused (bodies are objects)', async () => {
    expect((await post('"hello"')).status).toBe(400);
  });

  it('over the limit: 413 naming the limit', async () => {
    const r = await post(JSON.stringify({ a: 'x'.repeat(5_000) }));
    expect(r.status).toBe(413);
    expect(r.body.error?.message).toContain('1024 bytes');
  });

  it('wrong content type: 415', async () => {
    const r = await post('a=1', 'application/x-www-form-urlencoded');
    expect(r.status).toBe(415);
    expect(r.body.error?.message).toContain("'application/x-www-form-urlencoded'");
  });

  it('no body: passes through with an undefined body', async () => {
    const res = await fetch(url, { method: 'POST' });
    expect(await res.json()).toEqual({ got: null });
  });
});

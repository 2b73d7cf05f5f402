import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock';
import { createLogger } from '../../logger';
import { jsonBody } from './json-body';
import { requestContext } from './request-id';
import { sendError } from './send-error';

// The body parser in a bare app; the full server runs the same middleware on every POST route.
const app = express();
app.use(requestContext(systemClock));
app.post('/echo', jsonBody(1024, 30_000, { maxValues: 100_000, maxDepth: 128 }), (req, res) => {
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

  it('plain JSON: a byte-order mark is skipped, white space alone is refused', async () => {
    expect(await post('\uFEFF{"a":1}')).toEqual({ status: 200, body: { got: { a: 1 } } });
    const blank = await post('   ');
    expect(blank.status).toBe(400);
    expect(blank.body.error?.code).toBe('invalid_json');
  });

  it('plain JSON: a chunked body past the limit is a 413 without a declared length', async () => {
    const big = new TextEncoder().encode(JSON.stringify({ a: 'x'.repeat(5_000) }));
    const body = new ReadableStream({
      start(c) {
        for (let i = 0; i < big.length; i += 512) c.enqueue(big.subarray(i, i + 512));
        c.close();
      },
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('other charsets and encodings still parse through body-parser', async () => {
    const utf16 = Buffer.from('{"a":"é"}', 'utf16le');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: utf16,
    });
    expect(await res.json()).toEqual({ got: { a: 'é' } });
    const gz = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"a":2}'),
    });
    expect(await gz.json()).toEqual({ got: { a: 2 } });
  });

  it('a primitive at the top says what it received', async () => {
    const r = await post('42');
    expect(r.status).toBe(400);
    expect(r.body.error?.message).toContain('received a number');
  });
});

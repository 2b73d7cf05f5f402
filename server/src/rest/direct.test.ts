import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directDispatch } from './direct';

// The direct dispatch in front of a bare Express app: what it serves must look to handlers exactly as Express
// would present it, and what it does not serve must reach Express untouched.
const app = express();
app.set('trust proxy', false);
const served: string[] = [];
const stamp: RequestHandler = (req, res, next) => {
  res.locals.seen = `${req.method} ${req.path}`;
  next();
};
const echo: RequestHandler = (req, res) => {
  served.push('direct');
  res.json({ seen: res.locals.seen, query: req.query, app: req.app === app, baseUrl: req.baseUrl });
};
const throwsSync: RequestHandler = () => {
  throw new Error('sync failure');
};
const rejects: RequestHandler = async () => {
  await Promise.resolve();
  throw new Error('async failure');
};
const errorsTwice: RequestHandler = (_req, _res, next) => {
  next(new Error('first'));
  next(new Error('second'));
};
let errors = 0;
const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
  errors += 1;
  res.status(418).json({ error: err.message });
};
app.get('/echo', stamp, (_req, res) => {
  served.push('express');
  res.json({});
});
app.use(onError);
const dispatch = directDispatch(
  app,
  [
    { method: 'get', path: '/echo', chain: [stamp, echo] },
    { method: 'post', path: '/sync', chain: [throwsSync] },
    { method: 'post', path: '/async', chain: [rejects] },
    { method: 'post', path: '/twice', chain: [errorsTwice] },
  ],
  onError,
);
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (!dispatch(req, res)) app(req, res);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

describe('directDispatch', () => {
  it('serves its routes with Express request and response objects, query strings included', async () => {
    served.length = 0;
    const res = await fetch(`${url}/echo?a=1&b=two`);
    expect(await res.json()).toEqual({
      seen: 'GET /echo',
      query: { a: '1', b: 'two' },
      app: true,
      baseUrl: '',
    });
    expect(served).toEqual(['direct']);
  });

  it('leaves other spellings and methods to Express', async () => {
    served.length = 0;
    expect((await fetch(`${url}/echo/`)).status).toBe(200);
    expect((await fetch(`${url}/ECHO`)).status).toBe(200);
    expect((await fetch(`${url}/echo`, { method: 'HEAD' })).status).toBe(200);
    expect(served).toEqual(['express', 'express', 'express']);
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
  });

  it('sends thrown errors, rejections and next(err) to the error handler, once per request', async () => {
    errors = 0;
    for (const path of ['/sync', '/async', '/twice']) {
      const res = await fetch(`${url}${path}`, { method: 'POST' });
      expect(res.status).toBe(418);
      expect(((await res.json()) as { error: string }).error).toMatch(/sync failure|async failure|first/);
    }
    expect(errors).toBe(3);
  });
});

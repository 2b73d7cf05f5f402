import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors';
import { contextOf, type RequestContext } from '../http/request-context';
import { systemClock } from '../lib/clock';
import { createLogger } from '../logger';
import { requestContext } from './middleware/request-id';
import { sendError } from './middleware/send-error';
import { registerRoutes } from './routes';

// The route pipeline in a bare app, with a stand-in for authentication and one for metering that keeps each
// request's context as it is when the response ends.
const ended: RequestContext[] = [];
const meter: RequestHandler = (_req, res, next) => {
  res.on('finish', () => ended.push(contextOf(res)));
  next();
};
const authenticate: RequestHandler = (_req, res, next) => {
  contextOf(res).principal = {
    keyId: 'key_1',
    accountId: 'acc_1',
    mode: 'test',
    last4: 'abcd',
    plan: 'free',
    limits: { requestsPerMinute: 100, monthlyTokens: 1_000 },
  };
  next();
};
const usage = { model: 'tessera-fast-4k', promptTokens: 7, completionTokens: 5 };

const app = express();
app.use(requestContext(systemClock));
registerRoutes(
  app,
  [
    {
      method: 'get',
      path: '/answered',
      scope: 'models',
      handler: (_req, res, context) => {
        res.json({ account: context.principal.accountId, requestId: context.requestId });
        return { ok: true, usage };
      },
    },
    {
      method: 'get',
      path: '/failed',
      scope: 'models',
      handler: async () => ({
        ok: false,
        error: new ServiceError('unavailable', 'The upstream failed.', { code: 'upstream_error' }),
        usage,
      }),
    },
    {
      method: 'get',
      path: '/plain',
      scope: 'models',
      handler: (_req, res) => {
        res.json({});
      },
    },
  ],
  {
    meter,
    authenticate,
    afterAuth: [],
    jsonBody: (_req, _res, next) => next(),
    bodyTimeoutMs: 1_000,
    bodyBounds: { maxValues: 100, maxDepth: 8 },
  },
);
app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
  sendError(res, err, createLogger('silent'));
});

let base: string;
let server: ReturnType<typeof app.listen>;
beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

async function call(path: string): Promise<{ status: number; body: unknown; context: RequestContext }> {
  const res = await fetch(`${base}${path}`);
  const body: unknown = await res.json();
  const id = res.headers.get('x-request-id');
  // The response's 'finish' and the client's read of the body are two events of one loop: either may come first.
  let context = ended.find((c) => c.requestId === id);
  for (let i = 0; !context && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 5));
    context = ended.find((c) => c.requestId === id);
  }
  if (!context) throw new Error(`no context for ${path}`);
  return { status: res.status, body, context };
}

describe('registerRoutes: the handler gets the context, and its outcome is recorded once', () => {
  it("hands the handler the request's context and records a successful call's usage", async () => {
    const { status, body, context } = await call('/answered');
    expect(status).toBe(200);
    expect(body).toEqual({ account: 'acc_1', requestId: context.requestId });
    expect(context.route).toBe('/answered');
    expect(context.usage).toMatchObject({ ...usage, errorType: null });
  });

  it("records a failed call's usage, then answers its error through the one mapper", async () => {
    const { status, body, context } = await call('/failed');
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: { code: 'upstream_error' } });
    expect(context.usage).toMatchObject({ ...usage, errorCode: 'upstream_error' });
    expect(context.handlerRunning).toBe(false);
  });

  it('leaves the usage record empty for a handler that returns nothing', async () => {
    const { status, context } = await call('/plain');
    expect(status).toBe(200);
    expect(context.usage).toMatchObject({ model: null, promptTokens: null, completionTokens: null });
  });
});

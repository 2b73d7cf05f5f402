import { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** A route whose path has no parameters, with every handler a request to it passes through, in order. */
export interface DirectRoute {
  method: string;
  path: string;
  chain: RequestHandler[];
}

/**
 * Serves the fixed-path REST routes without Express's router: the same middleware and handlers, in the same
 * order, on the same Express request and response objects, with errors going to the app's error handler.
 * Express would match every request against each layer of the app in turn (a few dozen, most of them before
 * the public API's routes) and dispatch each handler through its router: about a tenth of a proxied chat
 * call's CPU. Anything else (other methods, paths with parameters, trailing slashes, other letter case) is
 * left to Express, which answers it exactly as before, 404 and 405 included.
 */
export function directDispatch(
  app: Express,
  routes: DirectRoute[],
  onError: ErrorRequestHandler,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const table = new Map<string, RequestHandler[]>();
  for (const route of routes) table.set(`${route.method.toUpperCase()} ${route.path}`, route.chain);
  return (rawReq, rawRes) => {
    const url = rawReq.url ?? '';
    const q = url.indexOf('?');
    const chain = table.get(`${rawReq.method} ${q === -1 ? url : url.slice(0, q)}`);
    if (!chain) return false;
    run(app, chain, onError, rawReq, rawRes);
    return true;
  };
}

/**
 * Request and response classes for the HTTP server whose instances are born with Express's prototypes, and
 * which become the app's `request` and `response`. Express sets those prototypes on every request it handles;
 * with them in place already that is a no-op. Changing an object's prototype after it is made is slow in V8,
 * and afterwards every property Express adds to the object made a new hidden class: 11 per request on the
 * routes Express serves, while the prototypes were subclasses of the app's objects rather than the app's
 * objects themselves (bench/gateway/maps.ts). A constructor reached through Reflect.construct with another
 * new-target is no way out: V8 then rebuilds ~26 maps for every IncomingMessage.
 */
export function expressServerClasses(app: Express): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  class ExpressIncomingMessage extends IncomingMessage {}
  adopt(ExpressIncomingMessage.prototype, app.request);
  app.request = ExpressIncomingMessage.prototype as typeof app.request;
  class ExpressServerResponse extends ServerResponse {}
  adopt(ExpressServerResponse.prototype, app.response);
  app.response = ExpressServerResponse.prototype as unknown as typeof app.response;
  return {
    IncomingMessage: ExpressIncomingMessage,
    ServerResponse: ExpressServerResponse as typeof ServerResponse,
  };
}

/** Makes `target` stand in for `source`: the same prototype and the same own properties (Express's `app`). */
function adopt(target: object, source: object): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(source));
  for (const key of Reflect.ownKeys(source)) {
    const descriptor = Object.getOwnPropertyDescriptor(source, key);
    if (descriptor) Object.defineProperty(target, key, descriptor);
  }
}

function run(
  app: Express,
  chain: RequestHandler[],
  onError: ErrorRequestHandler,
  rawReq: IncomingMessage,
  rawRes: ServerResponse,
): void {
  // What Express's app.handle and router do before the first handler (the prototypes only if the server
  // did not make the objects with them already).
  if ((rawReq as { app?: unknown }).app !== app) Object.setPrototypeOf(rawReq, app.request);
  if ((rawRes as { app?: unknown }).app !== app) Object.setPrototypeOf(rawRes, app.response);
  const req = rawReq as Request;
  const res = rawRes as Response;
  req.res = res;
  res.req = req;
  res.locals ??= Object.create(null);
  req.originalUrl ??= req.url;
  req.baseUrl = '';
  req.params = {};
  // One request's walk along its chain.
  let index = 0;
  let failed = false;
  const fail = (err: unknown) => {
    // One error per request reaches the handler, as with Express (a second would write a second answer).
    if (failed) return;
    failed = true;
    onError(err, req, res, () => {
      if (!res.headersSent) res.status(500).end();
    });
  };
  const next = ((err?: unknown) => {
    if (err !== undefined && err !== null) {
      fail(err);
      return;
    }
    const handler = chain[index++];
    if (!handler) return;
    try {
      const result: unknown = handler(req, res, next);
      if (result instanceof Promise) result.catch((e: unknown) => fail(e ?? new Error('rejected')));
    } catch (e) {
      fail(e);
    }
  }) as NextFunction;
  next();
}

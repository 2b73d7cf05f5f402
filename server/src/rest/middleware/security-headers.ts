import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers, worked out once. With static options helmet sets the same headers on every response
 * whatever the request (its dozen small middlewares run on each request otherwise, a measurable share of a
 * proxied chat call). The headers are captured by running helmet once against a recorder; should helmet ever
 * need the request or answer asynchronously, the real middleware is used instead.
 */
export function securityHeaders(options: HelmetOptions): RequestHandler {
  const real = helmet(options);
  const headers: [string, string][] = [];
  const removed: string[] = [];
  let synchronous = false;
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.push([name, String(value)]);
      return recorder;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  const request = new Proxy(
    {},
    {
      get() {
        throw new Error('helmet read the request');
      },
    },
  );
  try {
    real(request as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
      synchronous = err === undefined;
    });
  } catch {
    synchronous = false;
  }
  if (!synchronous) return real as RequestHandler;
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

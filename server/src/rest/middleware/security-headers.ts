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
  return fixedHeaders(headers, removed);
}

/** Sets the same headers on every response (and removes `removed`), whatever the request. */
function fixedHeaders(
  headers: readonly (readonly [string, string])[],
  removed: readonly string[] = [],
): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}

/**
 * The public API's headers (`/v1/…`, `/api/…`): JSON for programs, never a page, so the headers that only mean
 * something to a document a browser renders (DNS prefetch, downloads, Flash policies, the XSS auditor, origin
 * agent clusters, opener policy) are left out, and what remains is stricter than the dashboard's, as OWASP's
 * REST guidance has it: nothing may load or frame the answer. Half the headers of the document set, on every
 * call of the hot path.
 */
export const API_SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
];

export function apiSecurityHeaders(): RequestHandler {
  return fixedHeaders(API_SECURITY_HEADERS);
}

const API_PATH = /^\/(?:v1|api)(?:[/?]|$)/i;

/** The API's headers on the API's paths, the document headers everywhere else. */
export function securityHeadersByPath(document: RequestHandler, api: RequestHandler): RequestHandler {
  return (req, res, next) => (API_PATH.test(req.url) ? api : document)(req, res, next);
}

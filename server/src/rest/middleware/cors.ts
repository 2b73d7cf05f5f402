import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** Origins allowed to read the public API's answers in a browser: any (`*`), or these exactly (none by default). */
export type CorsOrigins = '*' | readonly string[];

/**
 * The response headers a browser client reads beyond the CORS-safelisted ones: the request id, the rate-limit
 * headers (rest/middleware/rate-limit.ts), the retry advice of 429s and 5xxs that the openai SDK follows, and
 * the provider that answered a chat call (rest/v1/chat.ts) and whether the response cache did (modules/cache).
 */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'x-tessera-provider',
  'x-tessera-cache',
].join(', ');

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE = '86400';
/** A comma-separated list of RFC 9110 header-name tokens (what browsers send, lower-cased and sorted). */
const HEADER_NAMES = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;
const MAX_REQUESTED_HEADERS_LENGTH = 4096;

/**
 * The paths authenticated by API keys only: `/v1/…` and `/api/…` but not `/api/playground/…` nor `/api/audit/…`, which the
 * dashboard's session cookie authenticates and which no other origin may call. Letter case is ignored as
 * Express's routing ignores it.
 */
const KEY_AUTHENTICATED_PATH = /^\/(?:v1|api(?!\/(?:playground|audit)(?:[/?]|$)))(?:[/?]|$)/i;

/**
 * CORS on the responses of the public API's routes: set only when the request names an Origin (browsers do;
 * server-to-server clients do not), so the hot path pays one header lookup without one. Never
 * `access-control-allow-credentials`: the API is authenticated by bearer keys, never by cookies.
 * For the direct dispatch's chains (rest/direct.ts), whose paths are all key-authenticated.
 */
export function corsHeaders(origins: CorsOrigins): RequestHandler {
  // No origin is granted: nothing to add, nothing for a cache to vary on.
  if (origins !== '*' && origins.length === 0) return (_req, _res, next) => next();
  if (origins === '*') {
    return (req, res, next) => {
      if (req.headers.origin !== undefined) {
        res.setHeader('access-control-allow-origin', '*');
        res.setHeader('access-control-expose-headers', CORS_EXPOSED_HEADERS);
      }
      next();
    };
  }
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined) {
      res.setHeader('vary', 'origin');
      if (allowed.has(origin)) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('access-control-expose-headers', CORS_EXPOSED_HEADERS);
      }
    }
    next();
  };
}

/**
 * CORS for the public API's paths on Express's side: an `OPTIONS` there is a preflight, answered 204 at once
 * (before the routes' metering, key and rate limit, and before their 405 for other methods); any other
 * method gets `corsHeaders` and goes on, so that 404s, 405s and every error carry them too.
 */
export function apiCors(origins: CorsOrigins): RequestHandler {
  const actual = corsHeaders(origins);
  const allowed = origins === '*' ? null : new Set(origins);
  return (req, res, next) => {
    if (!KEY_AUTHENTICATED_PATH.test(req.url)) {
      next();
      return;
    }
    if (req.method !== 'OPTIONS') {
      actual(req, res, next);
      return;
    }
    res.setHeader('vary', 'origin, access-control-request-headers');
    const origin = req.headers.origin;
    if (origin !== undefined && (allowed === null || allowed.has(origin))) {
      res.setHeader('access-control-allow-origin', allowed === null ? '*' : origin);
      res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
      const requested = requestedHeaders(req);
      if (requested !== undefined) res.setHeader('access-control-allow-headers', requested);
      res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE);
    }
    res.statusCode = 204;
    res.end();
  };
}

/** The preflight's requested headers, to be allowed as they are, if they are a well-formed list of names. */
function requestedHeaders(req: IncomingMessage): string | undefined {
  const value = req.headers['access-control-request-headers']?.trim();
  if (!value || value.length > MAX_REQUESTED_HEADERS_LENGTH || !HEADER_NAMES.test(value)) return undefined;
  return value;
}

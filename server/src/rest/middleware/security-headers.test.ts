import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers';

function run(handler: RequestHandler): { headers: Record<string, string>; removed: string[] } {
  const headers: Record<string, string> = { 'X-Powered-By': 'Express' };
  const removed: string[] = [];
  const res = {
    setHeader(name: string, value: unknown) {
      headers[name] = String(value);
      return res;
    },
    removeHeader(name: string) {
      removed.push(name);
      delete headers[name];
    },
  };
  let nexted = 0;
  handler({ method: 'GET', headers: {} } as Request, res as unknown as Response, () => {
    nexted += 1;
  });
  expect(nexted).toBe(1);
  return { headers, removed };
}

describe('security headers worked out once', () => {
  it('sets exactly what helmet sets with the same options, and removes what it removes', () => {
    const options = {
      contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'img-src': ["'self'", 'data:'] } },
      crossOriginEmbedderPolicy: false,
    };
    const expected = run(helmet(options) as RequestHandler);
    const actual = run(securityHeaders(options));
    expect(actual).toEqual(expected);
    expect(actual.headers['Content-Security-Policy']).toContain("script-src 'self'");
    expect(actual.headers['X-Powered-By']).toBeUndefined();
    expect(Object.keys(actual.headers).length).toBeGreaterThan(10);
  });

  it('the same headers on every response', () => {
    const handler = securityHeaders({});
    expect(run(handler)).toEqual(run(handler));
  });
});

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { constantTimeEqual } from '../lib/hash';

/** What `GET /metrics` answers with: a process's registry, or all of a cluster's summed (cluster.ts). */
export interface MetricsSource {
  exposition(): Promise<string>;
  readonly contentType: string;
}

/** Whether `authorization` carries `Bearer <token>` (compared in constant time). */
function presentsToken(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  return constantTimeEqual(presented, token);
}

/** Answers with the registry's text, or 401 when a token is configured and not presented. */
async function serveMetrics(
  metrics: MetricsSource,
  token: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (token !== undefined && !presentsToken(req.headers.authorization, token)) {
    res.statusCode = 401;
    res.setHeader('www-authenticate', 'Bearer realm="metrics"');
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end('metrics require the METRICS_TOKEN bearer token\n');
    return;
  }
  const text = await metrics.exposition();
  res.statusCode = 200;
  res.setHeader('content-type', metrics.contentType);
  res.setHeader('cache-control', 'no-store');
  res.end(text);
}

/**
 * GET /metrics on the public port, mounted only when METRICS_TOKEN is set: the token is what lets a scraper on
 * another host in. Without a token the public port has no /metrics at all (404), since a reverse proxy on the
 * same host makes every client look local there; the metrics listener (metrics/listener.ts) serves it instead.
 */
export function metricsHandler(metrics: MetricsSource, token: string): RequestHandler {
  return (req, res, next) => {
    serveMetrics(metrics, token, req, res).catch(next);
  };
}

/** The metrics listener's request handler: `GET /metrics`, 404 for anything else. */
export function metricsListenerHandler(metrics: MetricsSource, token: string | undefined) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.statusCode = 404;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('not found: this listener serves GET /metrics only\n');
      return;
    }
    serveMetrics(metrics, token, req, res).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  };
}

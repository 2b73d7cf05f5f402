import type { Request, RequestHandler } from 'express';
import { constantTimeEqual } from '../lib/hash';
import type { Metrics } from './registry';

function isLoopback(req: Request): boolean {
  // The socket's own peer, never X-Forwarded-For: a proxy in front would otherwise make everyone "local".
  const address = req.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * GET /metrics in Prometheus' text format. With METRICS_TOKEN set it requires `Authorization: Bearer <token>`;
 * without it, only loopback callers are served, so a default install never exposes it to the network.
 */
export function metricsHandler(metrics: Metrics, token: string | undefined): RequestHandler {
  return async (req, res) => {
    if (token !== undefined) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
      if (!constantTimeEqual(presented, token)) {
        res.setHeader('www-authenticate', 'Bearer realm="metrics"');
        res.status(401).type('text/plain').send('metrics require the METRICS_TOKEN bearer token\n');
        return;
      }
    } else if (!isLoopback(req)) {
      res
        .status(403)
        .type('text/plain')
        .send('metrics are served to loopback only unless METRICS_TOKEN is set\n');
      return;
    }
    res.setHeader('content-type', metrics.registry.contentType);
    res.setHeader('cache-control', 'no-store');
    res.send(await metrics.registry.metrics());
  };
}

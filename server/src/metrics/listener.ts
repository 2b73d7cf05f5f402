import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MetricsSource, metricsListenerHandler } from './endpoint';

export interface MetricsListener {
  server: Server;
  /** `http://host:port`, where `GET /metrics` answers. */
  url: string;
  close(): Promise<void>;
}

/**
 * A second HTTP listener for /metrics only, bound to loopback by default (METRICS_HOST, METRICS_PORT): a reverse
 * proxy forwards the public port, not this one, so it cannot publish the metrics by accident.
 */
export async function startMetricsListener(
  metrics: MetricsSource,
  { host, port, token }: { host: string; port: number; token: string | undefined },
): Promise<MetricsListener> {
  const server = createServer(metricsListenerHandler(metrics, token));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

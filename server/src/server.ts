import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { type AppOptions, createApp } from './app';
import { type MetricsListener, startMetricsListener } from './metrics/listener';
import type { Services } from './services';
import { GracefulShutdown } from './shutdown';

export interface RunningServer {
  server: Server;
  /** The Express app behind the server's listener (its `locals.draining` is what /readyz reads). */
  app: Express;
  url: string;
  port: number;
  /** Where the metrics listener answers `GET /metrics` (`http://127.0.0.1:9464`), unless it is off. */
  metricsUrl: string | undefined;
  /**
   * Stops accepting, lets in-flight requests finish within the grace period (shutdown.ts), then stops the
   * services. Resolves as soon as the last connection is closed.
   */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(
  services: Services,
  { port, host, ...appOptions }: { port: number; host: string } & AppOptions,
): Promise<RunningServer> {
  const { app, listener, serverOptions } = createApp(services, appOptions);
  const { headersTimeoutMs, bodyTimeoutMs } = services.ctx.config;
  // Node.js checks these timeouts every `connectionsCheckingInterval` (30 s by default): at most 1 s late here.
  const server = createServer({ ...serverOptions, connectionsCheckingInterval: 1_000 });
  const shutdown = new GracefulShutdown(server, {
    logger: services.ctx.logger,
    endCalls: () => services.chat.endAll() + services.embeddings.endAll(),
  });
  server.on('request', shutdown.listener(listener));
  server.listen(port, host);
  server.keepAliveTimeout = 65_000;
  // Slow clients (a request's headers or body trickling in) hold a connection for this long at most: the
  // headers get HEADERS_TIMEOUT_MS from the request's first byte, then a REST body BODY_TIMEOUT_MS
  // (json-body.ts, a 408 in OpenAI's body); Node.js's own 408 ends any request still incomplete after both.
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = headersTimeoutMs + bodyTimeoutMs + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  let metricsListener: MetricsListener | undefined;
  const { metrics: metricsConfig } = services.ctx.config;
  if (metricsConfig.port !== null) {
    try {
      metricsListener = await startMetricsListener(services.metrics, {
        host: metricsConfig.host,
        port: metricsConfig.port,
        token: metricsConfig.token,
      });
    } catch (err) {
      server.close();
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(
        `The metrics listener could not listen on ${metricsConfig.host}:${metricsConfig.port} (${code ?? (err as Error).message}).` +
          ' Give each instance on a host its own METRICS_PORT (0 picks a free one), or METRICS_PORT=off.',
      );
    }
  }
  services.start();
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    server,
    app,
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
    metricsUrl: metricsListener?.url,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        app.locals.draining = true;
        await shutdown.drain(graceMs);
        await services.stop();
        // Last: scrapes still see the drain.
        await metricsListener?.close();
      })();
      return closing;
    },
  };
}

import { openDatabase } from '../../src/db/client';
import { parseEnv } from '../../src/env';
import type { Clock } from '../../src/lib/clock';
import { createLogger } from '../../src/logger';
import { startServer } from '../../src/server';
import { createServices } from '../../src/services';
import { openTestDatabase } from '../helpers/database';
import type { LogCapture } from '../helpers/log-capture';
import {
  startTestServer,
  type TestServer,
  type TestServerOptions,
  testAuthThrottle,
} from '../helpers/server';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export interface ProxiedServer {
  server: TestServer;
  proxy: TcpProxy;
  /** A direct connection to the same database (for the test's own reads while the proxy is cut). */
  direct: Awaited<ReturnType<typeof openTestDatabase>>;
  close(): Promise<void>;
}

/**
 * Like startTestServer on Postgres (a fresh database, migrated), but the server reaches it only through a TCP
 * proxy that the test can cut. Needs TEST_DATABASE_URL.
 */
export async function startServerBehindDbProxy(
  env: Record<string, string> = {},
  options: { logs?: LogCapture; config?: TestServerOptions['config']; clock?: Clock } = {},
): Promise<ProxiedServer> {
  const direct = await openTestDatabase();
  if (!direct.url) throw new Error('startServerBehindDbProxy needs TEST_DATABASE_URL (a real Postgres)');
  await direct.migrate();
  const url = new URL(direct.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const parsed = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env });
  const services = createServices(parsed, {
    database: openDatabase({ url: url.toString(), maxConnections: 5, timeoutMs: parsed.DATABASE_TIMEOUT_MS }),
    logger: createLogger(parsed.LOG_LEVEL, options.logs),
    ...(options.clock && { clock: options.clock }),
    config: { authThrottle: testAuthThrottle(), ...options.config },
  });
  const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  const server: TestServer = { ...running, services, databaseUrl: url.toString() };
  return {
    server,
    proxy,
    direct,
    close: async () => {
      proxy.restore();
      await server.close();
      await proxy.close();
      await direct.close();
    },
  };
}

/** startTestServer with Redis (`redisUrl`, TEST_REDIS_URL) reached only through a TCP proxy the test can cut or stall. */
export async function startServerBehindRedisProxy(
  redisUrl: string,
): Promise<{ server: TestServer; proxy: TcpProxy }> {
  const target = new URL(redisUrl);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  target.hostname = '127.0.0.1';
  target.port = String(proxy.port);
  const server = await startTestServer({ env: { REDIS_URL: target.toString() } });
  return { server, proxy };
}

import type { AppConfig } from '../../src/config';
import type { Env } from '../../src/env';
import { parseEnv } from '../../src/env';
import type { Clock } from '../../src/lib/clock';
import { createLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { createServices, type Services } from '../../src/services';
import { openTestDatabase } from './database';
import type { LogCapture } from './log-capture';

export interface TestServer extends RunningServer {
  services: Services;
  /** The database URL when on Postgres (for a second instance on the same database). */
  databaseUrl: string | undefined;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  config?: Partial<AppConfig>;
  clock?: Clock;
  /** Receives the server's log lines (set `LOG_LEVEL` in `env` to what the test needs). */
  logs?: LogCapture;
}

/** The real server on a free loopback port, on its own fresh database. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const env: Env = parseEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const database = await openTestDatabase();
  const services = createServices(env, {
    database,
    logger: createLogger(env.LOG_LEVEL, options.logs),
    ...(options.clock && { clock: options.clock }),
    ...(options.config && { config: options.config }),
  });
  await database.migrate();
  const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  return { ...running, services, databaseUrl: database.url };
}

import type { AppConfig } from '../../src/config';
import type { Env } from '../../src/env';
import { parseEnv } from '../../src/env';
import type { Clock } from '../../src/lib/clock';
import { randomBase62 } from '../../src/lib/ids';
import { createLogger } from '../../src/logger';
import { DEFAULT_AUTH_THROTTLE } from '../../src/modules/auth-throttle';
import type { SearchMaintenanceHooks } from '../../src/modules/search';
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
  /** A database opened (and perhaps partly migrated) by the test; by default a fresh one. */
  database?: Awaited<ReturnType<typeof openTestDatabase>>;
  /** Holds the search index's background work (conversion, merges) at chosen points. */
  searchHooks?: SearchMaintenanceHooks;
}

/** The real server on a free loopback port, on its own fresh database. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const env: Env = parseEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const database = options.database ?? (await openTestDatabase({ migrated: true }));
  const services = createServices(env, {
    database,
    logger: createLogger(env.LOG_LEVEL, options.logs),
    ...(options.clock && { clock: options.clock }),
    ...(options.searchHooks && { searchHooks: options.searchHooks }),
    config: { authThrottle: testAuthThrottle(), ...options.config },
  });
  await database.migrate();
  const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  return { ...running, services, databaseUrl: database.url };
}

/**
 * The default sign-in and sign-up throttle with Redis keys of its own: test servers share one Redis (and the
 * client address 127.0.0.1), and counters must not carry over from one server, or one run, to the next.
 */
export function testAuthThrottle(
  overrides: Partial<typeof DEFAULT_AUTH_THROTTLE> = {},
): typeof DEFAULT_AUTH_THROTTLE {
  return { ...DEFAULT_AUTH_THROTTLE, redisPrefix: `tessera:test:${randomBase62(10)}:auth:`, ...overrides };
}

import { parseEnv } from '../../src/env';
import type { Clock } from '../../src/lib/clock';
import { createLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { createServices, type Services } from '../../src/services';
import { openTestDatabase } from './database';
import type { TestServer } from './server';

export interface Cluster {
  instances: (RunningServer & { services: Services })[];
  /** Instance 0 shaped as a TestServer, for the fixtures. */
  first: TestServer;
  close(): Promise<void>;
}

/** N instances, as N processes would be: each its own Services and HTTP server, one database, one Redis. */
export async function startCluster(
  n: number,
  redisUrl: string,
  clock?: Clock,
  extraEnv: Record<string, string> = {},
): Promise<Cluster> {
  const database = await openTestDatabase({ migrated: true });
  await database.migrate();
  const shared = { ...database, close: async () => {} };
  const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: redisUrl, ...extraEnv });
  const instances: Cluster['instances'] = [];
  for (let i = 0; i < n; i++) {
    const services = createServices(env, {
      database: shared,
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      ...(clock && { clock }),
    });
    const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
    instances.push({ ...running, services });
  }
  await waitFor(() => instances.every((i) => i.services.rateLimiter.mode === 'redis'), 'Redis ready');
  const first = instances[0];
  if (!first) throw new Error('no instance');
  return {
    instances,
    first: { ...first, databaseUrl: database.url },
    async close() {
      await Promise.all(instances.map((i) => i.close()));
      await database.close();
    },
  };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends n requests at once, spread round-robin over the instances; returns the status counts. */
export async function spread(cluster: Cluster, key: string, n: number): Promise<Record<number, number>> {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const instance = cluster.instances[i % cluster.instances.length];
      return fetch(`${instance?.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    }),
  );
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

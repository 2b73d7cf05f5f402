import { parseEnv } from '../../src/env';
import { createLogger } from '../../src/logger';
import type { KeyOwner, UsageEvent, UsageStore } from '../../src/modules/usage';
import { startServer } from '../../src/server';
import { createServices } from '../../src/services';
import { openTestDatabase } from './database';
import type { TestServer } from './server';

/** Wraps the real store: can fail every call for a while (a database outage) and keeps what was written. */
export class FlakyUsageStore implements UsageStore {
  failing = false;
  readonly written: UsageEvent[] = [];
  failedWrites = 0;

  constructor(private readonly inner: UsageStore) {}

  /** Writes that commit and then fail as if the answer to COMMIT was lost with the connection. */
  lostCommitAnswers = 0;

  async write(events: readonly UsageEvent[], maybeWritten?: (event: UsageEvent) => boolean): Promise<void> {
    if (this.failing) {
      this.failedWrites += 1;
      throw new Error('simulated database outage');
    }
    await this.inner.write(events, maybeWritten);
    this.written.push(...events);
    if (this.lostCommitAnswers > 0) {
      this.lostCommitAnswers -= 1;
      throw new Error('simulated connection loss after COMMIT');
    }
  }

  async resolveKeys(keyHashes: readonly string[]): Promise<Map<string, KeyOwner>> {
    if (this.failing) throw new Error('simulated database outage');
    return this.inner.resolveKeys(keyHashes);
  }

  async prune(before: { events: Date; minuteRollups: Date }): Promise<number> {
    if (this.failing) throw new Error('simulated database outage');
    return this.inner.prune(before);
  }
}

/** Like startTestServer, with the usage store wrapped so that a test can cut the database off. */
export async function startServerWithFlakyUsage(
  env: Record<string, string> = {},
): Promise<{ server: TestServer; store: FlakyUsageStore }> {
  const parsed = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env });
  const database = await openTestDatabase({ migrated: true });
  let store: FlakyUsageStore | undefined;
  const services = createServices(parsed, {
    database,
    logger: createLogger(parsed.LOG_LEVEL),
    usageStore: (inner) => {
      store = new FlakyUsageStore(inner);
      return store;
    },
  });
  await database.migrate();
  const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  if (!store) throw new Error('usage store was not wrapped');
  return { server: { ...running, services, databaseUrl: database.url }, store };
}

/** Reads one sample of a metric from the Prometheus text (0 when absent). */
export function metricValue(text: string, name: string, labels = ''): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [series, value] = line.split(' ');
    if (series === `${name}${labels}`) return Number(value);
  }
  return 0;
}

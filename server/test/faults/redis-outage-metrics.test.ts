import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import type { TestServer } from '../helpers/server';
import { startServerBehindRedisProxy } from './proxied-server';
import type { TcpProxy } from './tcp-proxy';

// Redis killed while the server runs: the limiter stops even trying it (its connection is not ready), so
// only the connection's own failures can show the outage. They are counted in
// tessera_ratelimit_redis_errors_total, which stayed 0 before. Needs a real Redis behind a proxy that dies.
const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('redis-outage-metrics.test.ts skipped: set TEST_REDIS_URL to run it');

let proxy: TcpProxy;
let server: TestServer;
let key: string;

beforeAll(async () => {
  if (!REDIS_URL) return;
  ({ server, proxy } = await startServerBehindRedisProxy(REDIS_URL));
  key = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
});
afterAll(async () => {
  await server?.close();
  await proxy?.close();
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

async function models(): Promise<number> {
  const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

describe.skipIf(!REDIS_URL)('Redis killed', () => {
  it('counts the connection failures in tessera_ratelimit_redis_errors_total; requests go on', async () => {
    await eventually(() => server.services.rateLimiter.mode === 'redis', 5_000);
    expect(await models()).toBe(200);
    expect(await metric('tessera_ratelimit_redis_errors_total')).toBe(0);

    // Connections reset and refused from now on, as when the Redis process is gone.
    await proxy.close();
    await eventually(() => server.services.rateLimiter.mode === 'fallback', 5_000);
    for (let i = 0; i < 5; i++) expect(await models()).toBe(200);
    // ioredis retries every 100 ms to 1 s: within 2 s at least one failed attempt.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await metric('tessera_ratelimit_fallback_decisions_total')).toBeGreaterThanOrEqual(5);
    expect(await metric('tessera_ratelimit_redis_errors_total')).toBeGreaterThan(0);
  });
});

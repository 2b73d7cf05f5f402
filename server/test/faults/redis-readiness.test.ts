import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { createAccountWithKey } from '../helpers/fixtures';
import type { TestServer } from '../helpers/server';
import { startServerBehindRedisProxy } from './proxied-server';
import type { TcpProxy } from './tcp-proxy';

// /readyz asks Redis itself. It read the rate limiter's mode, which only a request moves: an idle instance
// reported Redis unreachable after it was back (until its next API request), and a Redis that hung with the
// connection open as reachable. Needs a real Redis behind a proxy that can cut or stall it.
const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('redis-readiness.test.ts skipped: set TEST_REDIS_URL to run it');

let proxy: TcpProxy;
let server: TestServer;
let key: string;

beforeAll(async () => {
  if (!REDIS_URL) return;
  ({ server, proxy } = await startServerBehindRedisProxy(REDIS_URL));
  key = (await createAccountWithKey(server, { plan: 'pro' })).key.key;
  await eventually(() => server.services.rateLimiter.mode === 'redis', 5_000);
});
afterAll(async () => {
  await server?.close();
  await proxy?.close();
});

interface Ready {
  httpStatus: number;
  status: string;
  redis: string;
  ms: number;
}

async function readyz(): Promise<Ready> {
  const started = performance.now();
  const res = await fetch(`${server.url}/readyz`);
  const body = (await res.json()) as { status: string; redis: string };
  return { httpStatus: res.status, status: body.status, redis: body.redis, ms: performance.now() - started };
}

/** Polls /readyz, and nothing else, until Redis reads `redis`; the last answer either way. */
async function readyzUntil(redis: string, timeoutMs: number): Promise<Ready> {
  const deadline = Date.now() + timeoutMs;
  let last = await readyz();
  while (last.redis !== redis && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await readyz();
  }
  return last;
}

describe.skipIf(!REDIS_URL)('/readyz and Redis', () => {
  it('says Redis is back as soon as it is, with no API request in between', async () => {
    expect(await readyz()).toMatchObject({ httpStatus: 200, status: 'ready', redis: 'ok' });

    proxy.cut();
    // A request during the outage: the limiter decides in process and marks itself degraded.
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await readyz()).toMatchObject({ httpStatus: 200, status: 'degraded', redis: 'unreachable' });

    proxy.restore();
    // ioredis reconnects within a second (its retry strategy); /readyz alone must notice.
    expect(await readyzUntil('ok', 5_000)).toMatchObject({ httpStatus: 200, status: 'ready', redis: 'ok' });
    expect(server.services.rateLimiter.mode).toBe('redis');
  });

  it('says a hung Redis is unreachable, within a bounded time', async () => {
    expect(await readyzUntil('ok', 5_000)).toMatchObject({ redis: 'ok' });
    proxy.stall();
    try {
      const answer = await readyz();
      expect(answer).toMatchObject({ httpStatus: 200, status: 'degraded', redis: 'unreachable' });
      // REDIS_COMMAND_TIMEOUT_MS is 250 ms by default; the margin is for this shared machine.
      expect(answer.ms).toBeLessThan(1_500);
    } finally {
      proxy.restore();
    }
    expect(await readyzUntil('ok', 5_000)).toMatchObject({ httpStatus: 200, status: 'ready', redis: 'ok' });
  });
});

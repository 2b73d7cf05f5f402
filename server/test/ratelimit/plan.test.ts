import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPlan } from '../../src/modules/accounts';
import { usingPostgres } from '../helpers/database';
import { createAccount, createKey } from '../helpers/fixtures';
import { runCli } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';

const nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
let server: TestServer;
beforeAll(async () => {
  // A frozen clock: the limiter refills nothing during the test, so every count is exact.
  server = await startTestServer({ clock: { now: () => nowMs } });
});
afterAll(async () => {
  await server?.close();
});

async function burst(key: string, n: number): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    ),
  );
}

const admitted = (responses: Response[]) => responses.filter((r) => r.status === 200).length;

/** Polls (in real time) until the server reports the expected limit: plan changes must land within seconds. */
async function untilLimit(key: string, limit: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const [res] = await burst(key, 1);
    if (res?.headers.get('x-ratelimit-limit-requests') === String(limit)) return Date.now() - started;
    if (Date.now() - started > 5_000)
      throw new Error(`limit still ${res?.headers.get('x-ratelimit-limit-requests')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('plan changes reach the limiter within seconds', () => {
  it('Free → Pro: the exhausted account gets Pro headroom; Pro → Enterprise custom: the custom rate', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const key = await createKey(server, account.id, 'live');
    expect(admitted(await burst(key.key, 150))).toBe(100);

    await setPlan({ ctx: server.services.ctx, accountId: account.id, input: { plan: 'pro' } });
    expect(await untilLimit(key.key, 1000)).toBeLessThan(5_000);
    // 101 requests are in the bucket (the 100 and the probe that saw the new limit): 899 left.
    const afterUpgrade = await burst(key.key, 900);
    expect(admitted(afterUpgrade)).toBe(899);
    const refused = afterUpgrade.find((r) => r.status === 429);
    if (!refused) throw new Error('no 429 after the Pro headroom');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'the Pro plan allows 1000 requests per minute',
    );

    await setPlan({
      ctx: server.services.ctx,
      accountId: account.id,
      input: { plan: 'enterprise', customRequestsPerMinute: 1_500 },
    });
    await untilLimit(key.key, 1_500);
    // 1000 in the bucket carried over, plus the probe: 499 more.
    expect(admitted(await burst(key.key, 600))).toBe(499);
  }, 60_000);

  it('a downgrade applies too, the backlog capped at the new limit', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const key = await createKey(server, account.id, 'test');
    expect(admitted(await burst(key.key, 300))).toBe(300);
    await setPlan({ ctx: server.services.ctx, accountId: account.id, input: { plan: 'free' } });
    const started = Date.now();
    for (;;) {
      const [res] = await burst(key.key, 1);
      if (res?.headers.get('x-ratelimit-limit-requests') === '100') {
        expect(res.status).toBe(429);
        break;
      }
      if (Date.now() - started > 5_000) throw new Error('downgrade not seen');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(admitted(await burst(key.key, 10))).toBe(0);
  }, 60_000);

  // The CLI is another process: it can share the server's database only on Postgres (as in CI).
  it.skipIf(!usingPostgres())(
    'an operator changing the plan with the CLI reaches the running server',
    async () => {
      const account = await createAccount(server, { plan: 'free' });
      const key = await createKey(server, account.id, 'live');
      expect(admitted(await burst(key.key, 120))).toBe(100);
      const changed = await runCli({ databaseUrl: server.databaseUrl ?? '' }, [
        'account',
        'plan',
        '--account',
        account.id,
        '--plan',
        'enterprise',
        '--rpm',
        '300',
      ]);
      expect(changed).toMatchObject({ plan: 'enterprise', limits: { requestsPerMinute: 300 } });
      expect(await untilLimit(key.key, 300)).toBeLessThan(5_000);
      // 101 in the bucket (the 100 and the probe): 199 more.
      expect(admitted(await burst(key.key, 250))).toBe(199);
    },
    60_000,
  );
});

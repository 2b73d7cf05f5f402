import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowancePeriods, allowanceReservations, usageEvents } from '../../src/db/schema';
import { writeFakeCatalogue } from '../helpers/chat-setup';
import { type FakeUpstream, startFakeOpenAi } from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { type ProxiedServer, startServerBehindDbProxy } from './proxied-server';

// Postgres unreachable for longer than a lease's age (2 s): live keys go on being served from the tokens the
// instance's lease holds in the database, then get 503 when those are spent, and the allowance counts exactly
// what was served once Postgres is back. Needs a real Postgres to cut off.
const postgres = Boolean(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL);
if (!postgres)
  console.warn(
    'db-outage-allowance.test.ts skipped: set TEST_DATABASE_URL to run it against a real Postgres',
  );

const LEASE_TOKENS = 1_500;
const LEASE_MAX_AGE_MS = 2_000;

let upstream: FakeUpstream;
let setup: ProxiedServer;

beforeAll(async () => {
  if (!postgres) return;
  upstream = await startFakeOpenAi();
  setup = await startServerBehindDbProxy({
    USAGE_FLUSH_INTERVAL_MS: '100',
    PLAN_PRO_RPM: '100000',
    MODELS_FILE: writeFakeCatalogue(),
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    OPENAI_API_KEY: 'sk-upstream-secret',
    ALLOWANCE_LEASE_TOKENS: String(LEASE_TOKENS),
  });
});
afterAll(async () => {
  await setup?.close();
  await upstream?.close();
});

interface Answer {
  status: number;
  at: number;
  tokens: number;
  code: string | undefined;
  retryAfter: string | null;
}

describe.skipIf(!postgres)('live keys while Postgres is unavailable', () => {
  it('are served from the leased tokens past the lease age, then 503; the allowance counts exactly what was served', async () => {
    const { server, proxy, direct } = setup;
    const { key, account } = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
    const chat = async (): Promise<Answer> => {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'up-ok',
          messages: [{ role: 'user', content: 'Say hello' }],
          max_tokens: 20,
        }),
      });
      const body = (await res.json()) as { usage?: { total_tokens: number }; error?: { code: string } };
      return {
        status: res.status,
        at: Date.now(),
        tokens: body.usage?.total_tokens ?? 0,
        code: body.error?.code,
        retryAfter: res.headers.get('retry-after'),
      };
    };

    // The first call takes the lease (and warms the key cache and the allowance view): it is older than
    // `Date.now() - leasedAt` from here on.
    const warm = [await chat()];
    const leasedAt = Date.now();
    warm.push(await chat());
    expect(warm.map((r) => r.status)).toEqual([200, 200]);

    proxy.cut();
    const cutAt = Date.now();
    // Paced past the lease's age: a healthy database would have the lease closed and a new one taken.
    const paced: Answer[] = [];
    while (Date.now() - leasedAt < LEASE_MAX_AGE_MS + 1_000) {
      paced.push(await chat());
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(paced.filter((r) => r.status !== 200)).toEqual([]);
    expect(paced.filter((r) => r.at - leasedAt > LEASE_MAX_AGE_MS + 200).length).toBeGreaterThan(3);
    // Then until the lease's tokens run out.
    const burst: Answer[] = [];
    while (burst.length < 200 && burst.at(-1)?.status !== 503) burst.push(await chat());
    const refused = burst.at(-1);
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: '1' });
    const again = await chat();
    expect(again).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(burst.slice(0, -1).filter((r) => r.status !== 200)).toEqual([]);
    expect(proxy.refused).toBeGreaterThan(0);

    const served = [...warm, ...paced, ...burst].filter((r) => r.status === 200);
    const total = served.reduce((sum, r) => sum + r.tokens, 0);
    expect(served.every((r) => r.tokens > 0)).toBe(true);
    // Everything served came out of the one lease: never more than it holds, and most of it used.
    expect(total).toBeLessThanOrEqual(LEASE_TOKENS);
    expect(total).toBeGreaterThan(LEASE_TOKENS - 100);
    expect(Date.now() - cutAt).toBeGreaterThan(LEASE_MAX_AGE_MS);

    proxy.restore();
    const counters = async () => {
      const [row] = await direct.db
        .select({ used: allowancePeriods.used, reserved: allowancePeriods.reserved })
        .from(allowancePeriods)
        .where(eq(allowancePeriods.accountId, account.id));
      return row;
    };
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const row = await counters();
      if (row?.used === total && row.reserved === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Written once, and the lease closed: its spare tokens are the account's again.
    expect(await counters()).toEqual({ used: total, reserved: 0 });
    const leases = await direct.db
      .select()
      .from(allowanceReservations)
      .where(eq(allowanceReservations.accountId, account.id));
    expect(leases).toEqual([]);
    // Usage says the same: the 503s never reached a model and are metered with 0 tokens (issue 39).
    const calls = warm.length + paced.length + burst.length + 1;
    let events: (typeof usageEvents.$inferSelect)[] = [];
    while (Date.now() < deadline + 10_000 && events.length < calls) {
      await server.services.usage.flush();
      events = await direct.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    }
    expect(events).toHaveLength(calls);
    const refusals = events.filter((e) => e.status === 503);
    expect(refusals).toHaveLength(2);
    for (const e of refusals) expect(e).toMatchObject({ promptTokens: 0, completionTokens: 0 });
    expect(events.reduce((sum, e) => sum + (e.promptTokens ?? 0) + (e.completionTokens ?? 0), 0)).toBe(total);
    // And live calls take a new lease again.
    expect((await chat()).status).toBe(200);
  });
});

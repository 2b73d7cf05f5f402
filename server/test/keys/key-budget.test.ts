import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allowancePeriods, allowanceReservations, keyBudgetPeriods } from '../../src/db/schema';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import { presentedKey } from '../../src/modules/keys';
import { type Cluster, startCluster } from '../helpers/cluster';
import { usingPostgres } from '../helpers/database';
import { createAccount, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const MAX_TOKENS = 40;

function chat(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'Tell me about rivers' }],
      max_tokens: MAX_TOKENS,
    }),
  });
}

/** Status (or 429 code) counts of n concurrent calls spread over the urls, and the tokens they used. */
async function calls(urls: string[], key: string, n: number) {
  const counts: Record<string, number> = {};
  let used = 0;
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await chat(urls[i % urls.length] ?? '', key);
      const body = (await res.json()) as { usage?: { total_tokens: number }; error?: { code: string } };
      const label = res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
      counts[label] = (counts[label] ?? 0) + 1;
      used += body.usage?.total_tokens ?? 0;
    }),
  );
  return { counts, used };
}

async function keyPeriod(server: TestServer, keyId: string) {
  const [row] = await server.services.ctx.db
    .select()
    .from(keyBudgetPeriods)
    .where(eq(keyBudgetPeriods.keyId, keyId));
  return row;
}

async function accountUsed(server: TestServer, accountId: string): Promise<number> {
  const [row] = await server.services.ctx.db
    .select()
    .from(allowancePeriods)
    .where(and(eq(allowancePeriods.accountId, accountId)));
  return row?.used ?? 0;
}

describe('a key’s token budget, on one instance', () => {
  let server: TestServer;
  let skippedMs = 0;
  beforeAll(async () => {
    // Live keys are served by the simulator (no upstream configured); a delay per token keeps calls in flight.
    server = await startTestServer({
      env: { SIMULATOR_TOKEN_DELAY_MS: '3', PLAN_FREE_RPM: '100000' },
      clock: { now: () => Date.now() + skippedMs },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('admits calls while the budget holds, then 429 key_budget_exceeded (openai SDK); resets the next day', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const key = await createKey(server, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 300, period: 'day' },
    });
    expect(key.tokenBudget).toEqual({ tokens: 300, period: 'day' });
    const first = await chat(server.url, key.key);
    const usage = ((await first.json()) as { usage: { total_tokens: number } }).usage;

    const { counts, used } = await calls([server.url], key.key, 12);
    // However the calls interleave, a call is admitted only while what is used and held fits the budget: every
    // call uses the same tokens here, so at most this many more can pass.
    expect(counts['200'] ?? 0).toBeGreaterThanOrEqual(1);
    expect(counts['200'] ?? 0).toBeLessThanOrEqual(
      Math.floor((300 - usage.total_tokens) / usage.total_tokens),
    );
    expect(counts['429 key_budget_exceeded']).toBe(12 - (counts['200'] ?? 0));

    const row = await keyPeriod(server, key.id);
    expect(row).toMatchObject({ period: 'day', used: usage.total_tokens + used, reserved: 0 });
    expect(row?.used).toBeLessThanOrEqual(300);
    // The account's allowance counted the same calls.
    expect(await accountUsed(server, account.id)).toBe(usage.total_tokens + used);

    const sdk = new OpenAI({ apiKey: key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // Fill what is left, then the SDK sees the key's own 429.
    while ((await chat(server.url, key.key)).status === 200);
    const err = await sdk.chat.completions
      .create({
        model: 'tessera-fast-4k',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: MAX_TOKENS,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'key_budget_exceeded', type: 'insufficient_quota' });
    expect((err as Error).message).toContain("this API key's token budget is 300 tokens per day");
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry')).toBe('false');

    skippedMs += 24 * 3600_000;
    expect((await chat(server.url, key.key)).status).toBe(200);
  });

  it('the plan’s allowance still binds a key whose budget is larger than what the account has left', async () => {
    const account = await createAccount(server, { plan: 'free', customMonthlyTokens: 400 });
    const budgeted = await createKey(server, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 400, period: 'week' },
    });
    const other = await createKey(server, account.id, 'live', 'other');
    while ((await chat(server.url, other.key)).status === 200);
    const res = await chat(server.url, budgeted.key);
    expect(res.status).toBe(429);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('insufficient_quota');
    expect(body.error.message).toContain('monthly token allowance');
    // The refused call holds nothing in the key's budget.
    expect((await keyPeriod(server, budgeted.id))?.reserved ?? 0).toBe(0);
  });

  it('the token headers show the key’s budget while it is the tighter limit, the account’s otherwise', async () => {
    const account = await createAccount(server, { plan: 'free', customMonthlyTokens: 100_000 });
    const budgeted = await createKey(server, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 500, period: 'day' },
    });
    const first = await chat(server.url, budgeted.key);
    const used = ((await first.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
    const res = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${budgeted.key}` },
    });
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('500');
    expect(res.headers.get('x-ratelimit-remaining-tokens')).toBe(String(500 - used));
    // The day's budget resets at the next UTC midnight, within 24 hours.
    const reset = res.headers.get('x-ratelimit-reset-tokens') ?? '';
    expect(reset).toMatch(/^(\d+h)?(\d+m)?\d+(\.\d+)?s$/);
    expect(Number(/^(\d+)h/.exec(reset)?.[1] ?? 0)).toBeLessThan(24);

    // A key whose budget leaves more than the account has left shows the account's figures.
    const small = await createAccount(server, { plan: 'free', customMonthlyTokens: 300 });
    const roomy = await createKey(server, small.id, 'live', 'roomy', {
      tokenBudget: { tokens: 300, period: 'month' },
    });
    const other = await createKey(server, small.id, 'live', 'other');
    const spent = ((await (await chat(server.url, other.key)).json()) as { usage: { total_tokens: number } })
      .usage.total_tokens;
    const r2 = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${roomy.key}` } });
    expect(r2.headers.get('x-ratelimit-limit-tokens')).toBe('300');
    expect(r2.headers.get('x-ratelimit-remaining-tokens')).toBe(String(300 - spent));
  });

  it('a reservation never settled (its process died) is given back to the key’s budget by the sweep', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const key = await createKey(server, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 500, period: 'day' },
    });
    const principal = await server.services.keys.verify(presentedKey(`Bearer ${key.key}`));
    const allowance = new MonthlyTokenAllowance(server.services.ctx);
    await allowance.reserve(principal, 120);
    expect(await keyPeriod(server, key.id)).toMatchObject({ used: 0, reserved: 120 });
    await server.services.ctx.db
      .update(allowanceReservations)
      .set({ expiresAt: new Date(Date.now() - 1_000) })
      .where(eq(allowanceReservations.keyId, key.id));
    expect(await allowance.sweep()).toBe(1);
    expect(await keyPeriod(server, key.id)).toMatchObject({ used: 0, reserved: 0 });
  });

  it('refuses a budget on a test key and one larger than the plan’s allowance, with the field', async () => {
    const account = await createAccount(server, { plan: 'free' });
    await expect(
      createKey(server, account.id, 'test', 't', { tokenBudget: { tokens: 10, period: 'day' } }),
    ).rejects.toMatchObject({ kind: 'invalid_request', param: 'tokenBudget' });
    await expect(
      createKey(server, account.id, 'live', 'l', { tokenBudget: { tokens: 100_001, period: 'month' } }),
    ).rejects.toMatchObject({ kind: 'invalid_request', param: 'tokenBudget.tokens' });
  });
});

describe.skipIf(!usingPostgres())('a key’s token budget on PostgreSQL: one lock order', () => {
  let server: TestServer;
  let sql: postgres.Sql | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    sql = postgres(server.databaseUrl ?? '', { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await server?.close();
  });

  it('a settle waiting for the key’s row holds not the account’s, which a reservation of the key wants next', async () => {
    const db = sql as postgres.Sql;
    const account = await createAccount(server, { plan: 'free' });
    const key = await createKey(server, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 500, period: 'day' },
    });
    const principal = await server.services.keys.verify(presentedKey(`Bearer ${key.key}`));
    const reservation = await new MonthlyTokenAllowance(server.services.ctx).reserve(principal, 100);
    // Another call of the key being admitted (reserveWithKeyBudget): it holds the key's row and wants the
    // account's next.
    const admitting = await db.reserve();
    await admitting`begin`;
    await admitting`update key_budget_periods set reserved = reserved where key_id = ${key.id}`;
    const settled = reservation.settle(60);
    const name = new URL(server.databaseUrl ?? '').pathname.slice(1);
    await eventually(async () => {
      const waiting = await db`select 1 from pg_stat_activity
        where datname = ${name} and wait_event_type = 'Lock' and query like '%allowance_reservations%'`;
      return waiting.length > 0;
    });
    // The settle waits for the key's row: had it taken the account's first, the admitting call would wait for
    // it in turn, a deadlock PostgreSQL ends after a second by failing one of the two.
    const free = await db`select 1 from allowance_periods where account_id = ${account.id} for update nowait`;
    expect(free).toHaveLength(1);
    await admitting`update allowance_periods set reserved = reserved where account_id = ${account.id}`;
    await admitting`commit`;
    admitting.release();
    await settled;
    expect(await keyPeriod(server, key.id)).toMatchObject({ used: 60, reserved: 0 });
    expect(await accountUsed(server, account.id)).toBe(60);
  });
});

async function eventually(condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('a key’s token budget across 3 instances', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('concurrent calls over 3 instances never hold or use more than the budget', async () => {
    cluster = await startCluster(3, REDIS_URL ?? '', undefined, {
      SIMULATOR_TOKEN_DELAY_MS: '3',
      PLAN_FREE_RPM: '100000',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    });
    const urls = cluster.instances.map((i) => i.url);
    const account = await createAccount(cluster.first, { plan: 'free' });
    const key = await createKey(cluster.first, account.id, 'live', 'budgeted', {
      tokenBudget: { tokens: 1_000, period: 'month' },
    });
    const { counts, used } = await calls(urls, key.key, 60);
    expect(counts['200'] ?? 0).toBeGreaterThanOrEqual(1);
    expect((counts['200'] ?? 0) + (counts['429 key_budget_exceeded'] ?? 0)).toBe(60);
    expect(used).toBeLessThanOrEqual(1_000);
    const row = await keyPeriod(cluster.first, key.id);
    expect(row).toMatchObject({ used, reserved: 0 });
    expect(await accountUsed(cluster.first, account.id)).toBe(used);
  }, 120_000);
});

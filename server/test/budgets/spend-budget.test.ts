/**
 * Money budgets through the real server: set through the dashboard's tRPC, enforced on live calls (reserved at
 * the worst-case cost before the call, settled to the real cost after it), exact under concurrency, reset on
 * the UTC calendar boundary, and an aborted stream billed for what it sent.
 */
import { and, asc, eq, like } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, usageEvents } from '../../src/db/schema';
import { presentedKey } from '../../src/modules/keys';
import { startTestServer, type TestServer } from '../helpers/server';
import { signUpOwner } from '../helpers/teams';
import {
  chat,
  costOf,
  EMBEDDING_MODEL,
  liveKey,
  MAX_TOKENS,
  MODEL,
  periodRows,
  pricedCatalogue,
  type Usage,
} from './helpers';

let server: TestServer;
let skippedMs = 0;

beforeAll(async () => {
  server = await startTestServer({
    // A delay per token keeps concurrent calls in flight together.
    env: { MODELS_FILE: pricedCatalogue(), SIMULATOR_TOKEN_DELAY_MS: '3', PLAN_FREE_RPM: '100000' },
    clock: { now: () => Date.now() + skippedMs },
  });
});
afterAll(async () => {
  await server?.close();
});

/** Status (or 429 code) counts of n concurrent calls, and what the admitted ones cost. */
async function calls(key: string, n: number) {
  const counts: Record<string, number> = {};
  let cost = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await chat(server.url, key);
      const body = (await res.json()) as { usage?: Usage; error?: { code: string } };
      const label = res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
      counts[label] = (counts[label] ?? 0) + 1;
      if (body.usage) cost += costOf(body.usage);
    }),
  );
  return { counts, cost };
}

describe('a key’s spend budget', () => {
  it('admits parallel calls only while their worst case fits, never overspends, then 429; resets the next UTC day', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    // One call's worst case is its prompt at 10 plus 40 tokens at 20 (≈ 960 micro-units): 3,000 fits three.
    const set = await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: 3_000, period: 'day' },
    });
    expect(set.status).toBe(200);
    expect(set.data).toMatchObject({ scope: 'key', subjectId: key.id, amountMicros: 3_000, usedMicros: 0 });

    const { counts, cost } = await calls(key.key, 12);
    expect(counts['200'] ?? 0).toBeGreaterThanOrEqual(1);
    expect((counts['200'] ?? 0) + (counts['429 spend_budget_exceeded'] ?? 0)).toBe(12);
    const [row] = await periodRows(server, owner.accountId, 'key');
    // Exactly what the admitted calls cost, all holds given back, and never over the budget.
    expect(row).toMatchObject({ subjectId: key.id, period: 'day', usedMicros: cost, reservedMicros: 0 });
    expect(row?.usedMicros).toBeLessThanOrEqual(3_000);

    // Fill what is left, then the SDK sees the budget's 429.
    while ((await chat(server.url, key.key)).status === 200);
    const sdk = new OpenAI({ apiKey: key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await sdk.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: MAX_TOKENS })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'spend_budget_exceeded', type: 'insufficient_quota' });
    expect((err as Error).message).toContain("this API key's spend budget is 0.003 USD per day");
    const headers = (err as InstanceType<typeof OpenAI.APIError>).headers;
    expect(headers?.get('x-should-retry')).toBe('false');
    expect(Number(headers?.get('retry-after'))).toBeLessThanOrEqual(24 * 3600);

    // The next UTC day is a new period: the budget is whole again.
    skippedMs += 24 * 3600_000;
    const next = await chat(server.url, key.key);
    expect(next.status).toBe(200);
    const rows = await periodRows(server, owner.accountId, 'key');
    expect(rows).toHaveLength(2);
    const today = rows.find((r) => r.periodStart !== row?.periodStart);
    expect(today?.usedMicros).toBe(costOf(((await next.json()) as { usage: Usage }).usage));
  });

  it('an organisation budget binds every key; clearing it lifts the limit', async () => {
    const owner = await signUpOwner(server);
    const a = await liveKey(owner, 'a');
    const b = await liveKey(owner, 'b');
    await owner.client.mutation('budgets.set', {
      scope: 'account',
      budget: { amountMicros: 2_500, period: 'month' },
    });
    while ((await chat(server.url, a.key)).status === 200);
    const refused = await chat(server.url, b.key);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('spend_budget_exceeded');
    expect(body.error.message).toContain("the organisation's spend budget is 0.0025 USD per month");
    const [row] = await periodRows(server, owner.accountId, 'account');
    expect(row?.usedMicros).toBeLessThanOrEqual(2_500);
    expect(row?.reservedMicros).toBe(0);

    const list = await owner.client.query<{
      currency: string;
      budgets: { scope: string; usedMicros: number }[];
    }>('budgets.list');
    expect(list.data).toMatchObject({
      currency: 'USD',
      budgets: [{ scope: 'account', usedMicros: row?.usedMicros }],
    });

    await owner.client.mutation('budgets.set', { scope: 'account', budget: null });
    expect((await chat(server.url, b.key)).status).toBe(200);
    // Both changes are in the audit log, with the amount set.
    const audit = await server.services.ctx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, owner.accountId), like(auditEvents.action, 'budget.%')))
      .orderBy(asc(auditEvents.createdAt));
    expect(audit.map((e) => [e.action, e.targetType, e.targetId])).toEqual([
      ['budget.set', 'account_budget', owner.accountId],
      ['budget.cleared', 'account_budget', owner.accountId],
    ]);
    expect(audit[0]?.details).toEqual({ amountMicros: 2_500, period: 'month' });
  });

  it('a member’s budget binds the keys the member owns', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    await owner.client.mutation('budgets.set', {
      scope: 'member',
      subjectId: owner.userId,
      budget: { amountMicros: 1_500, period: 'week' },
    });
    while ((await chat(server.url, key.key)).status === 200);
    const [row] = await periodRows(server, owner.accountId, 'member');
    expect(row).toMatchObject({ subjectId: owner.userId, period: 'week', reservedMicros: 0 });
    expect(row?.usedMicros).toBeGreaterThan(0);
    expect(row?.usedMicros).toBeLessThanOrEqual(1_500);
    // ISO weeks start on Monday.
    expect(new Date(`${row?.periodStart}T00:00:00Z`).getUTCDay()).toBe(1);
  });

  it('an aborted stream is billed for what it sent, as its usage event says', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: 1_000_000, period: 'day' },
    });
    const controller = new AbortController();
    const res = await chat(server.url, key.key, { stream: true, max_tokens: 400 });
    const reader = res.body?.getReader();
    // Read a few chunks, then leave.
    for (let i = 0; i < 5; i++) await reader?.read();
    controller.abort();
    await reader?.cancel();
    let row: Awaited<ReturnType<typeof periodRows>>[number] | undefined;
    const deadline = Date.now() + 10_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      [row] = await periodRows(server, owner.accountId, 'key');
    } while ((row?.reservedMicros ?? 1) > 0 && Date.now() < deadline);
    expect(row?.reservedMicros).toBe(0);
    await server.services.usage.flush();
    const [event] = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.keyId, key.id));
    expect(event?.status).toBe(499);
    expect(event?.completionTokens).toBeGreaterThan(0);
    expect(event?.completionTokens).toBeLessThan(400);
    expect(row?.usedMicros).toBe(event?.costMicros);
  });

  it('embeddings spend from the same budget, at the model’s input price', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: 2_000, period: 'day' },
    });
    const embed = () =>
      fetch(`${server.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: EMBEDDING_MODEL, input: 'rivers and lakes of the north' }),
      });
    const first = await embed();
    expect(first.status).toBe(200);
    const tokens = ((await first.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    let admitted = 1;
    while ((await embed()).status === 200) admitted += 1;
    const [row] = await periodRows(server, owner.accountId, 'key');
    expect(row?.usedMicros).toBe(admitted * tokens * 100);
    expect(row?.usedMicros).toBeLessThanOrEqual(2_000);
    expect(2_000 - (row?.usedMicros ?? 0)).toBeLessThan(tokens * 100);
  });

  it('refuses bad input with the field named', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    const bad = await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: -5, period: 'day' },
    });
    expect(bad.status).toBe(400);
    expect(bad.error?.data.code).toBe('BAD_REQUEST');
    expect(bad.error?.data.fieldErrors?.['budget.amountMicros']?.[0]).toBe('amountMicros must be at least 1');
    const period = await owner.client.mutation('budgets.set', {
      scope: 'account',
      budget: { amountMicros: 5, period: 'year' },
    });
    expect(period.status).toBe(400);
    const test = await owner.client.mutation<unknown>('keys.create', { name: 't', kind: 'test' });
    const testKey = test.data as { id: string };
    const onTest = await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: testKey.id,
      budget: { amountMicros: 5, period: 'day' },
    });
    expect(onTest.status).toBe(400);
    expect(onTest.error?.data.fieldErrors?.subjectId?.[0]).toContain('live keys only');
    const unknown = await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: 'key_nobody',
      budget: { amountMicros: 5, period: 'day' },
    });
    expect(unknown.status).toBe(404);
    const noSubject = await owner.client.mutation('budgets.set', {
      scope: 'key',
      budget: { amountMicros: 5, period: 'day' },
    });
    expect(noSubject.status).toBe(400);
    expect(Object.keys(noSubject.error?.data.fieldErrors ?? {})).toEqual(['subjectId']);
  });

  it('another organisation’s key or member is not found, as an unknown one, and gets no budget', async () => {
    const a = await signUpOwner(server, 'a');
    const aKey = await liveKey(a);
    const b = await signUpOwner(server, 'b');
    for (const input of [
      { scope: 'key', subjectId: aKey.id },
      { scope: 'member', subjectId: a.userId },
    ]) {
      const res = await b.client.mutation('budgets.set', {
        ...input,
        budget: { amountMicros: 1, period: 'day' },
      });
      expect(res.status).toBe(404);
      expect(res.error?.data.code).toBe('NOT_FOUND');
    }
    const listed = await b.client.query<{ budgets: unknown[] }>('budgets.list');
    expect(listed.data?.budgets).toEqual([]);
    // A's key is not bound by anything B tried.
    expect((await chat(server.url, aKey.key)).status).toBe(200);
    expect(await periodRows(server, a.accountId, 'key')).toEqual([]);
  });

  it('a hold never settled (its process died) is given back by the sweep', async () => {
    const owner = await signUpOwner(server);
    const key = await liveKey(owner);
    await owner.client.mutation('budgets.set', {
      scope: 'key',
      subjectId: key.id,
      budget: { amountMicros: 5_000, period: 'day' },
    });
    const principal = await server.services.keys.verify(presentedKey(`Bearer ${key.key}`));
    await server.services.spend.reserve(principal, 1_200);
    expect((await periodRows(server, owner.accountId, 'key'))[0]).toMatchObject({ reservedMicros: 1_200 });
    await server.services.ctx.db.execute(
      `update spend_holds set expires_at = now() - interval '1 second' where subject_id = '${key.id}'` as never,
    );
    expect(await server.services.spend.sweep()).toBe(1);
    expect((await periodRows(server, owner.accountId, 'key'))[0]).toMatchObject({
      reservedMicros: 0,
      usedMicros: 0,
    });
  });
});

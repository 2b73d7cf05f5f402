import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowancePeriods, usageEvents } from '../../src/db/schema';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  // Live keys are served by the simulator here (no upstream configured); a small delay per token keeps
  // concurrent calls in flight together.
  server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '3', PLAN_FREE_RPM: '100000' } });
});
afterAll(async () => {
  await server?.close();
});

async function liveKey(monthlyTokens: number, kind: 'live' | 'test' = 'live') {
  const account = await createAccount(server, { plan: 'free', customMonthlyTokens: monthlyTokens });
  return { account, key: (await createKey(server, account.id, kind)).key };
}

function chat(key: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'Tell me about rivers' }],
      ...body,
    }),
    ...(signal && { signal }),
  });
}

async function periodOf(accountId: string) {
  const [row] = await server.services.ctx.db
    .select()
    .from(allowancePeriods)
    .where(eq(allowancePeriods.accountId, accountId));
  return row;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Completion {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

describe('token allowance through /v1/chat/completions', () => {
  it('a live call consumes its real usage; the next response shows what remains', async () => {
    const { account, key } = await liveKey(5_000);
    const res = await chat(key, { max_tokens: 40 });
    expect(res.status).toBe(200);
    const { usage } = (await res.json()) as Completion;
    // Settling follows the response by a moment.
    const row = await until(
      () => periodOf(account.id),
      (r) => r?.reserved === 0,
    );
    expect(row).toMatchObject({ used: usage.total_tokens, reserved: 0 });
    const next = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(next.headers.get('x-ratelimit-limit-tokens')).toBe('5000');
    expect(next.headers.get('x-ratelimit-remaining-tokens')).toBe(String(5_000 - usage.total_tokens));
  });

  it('exhausted: 429 insufficient_quota, x-should-retry false, a message naming the reset', async () => {
    const { key } = await liveKey(1_000);
    const res = await chat(key, { max_tokens: 2_000 });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after-ms'))).toBeGreaterThanOrEqual(1_000);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota', param: null });
    expect(body.error.message).toMatch(
      /only 1,000 of your monthly token allowance remain.*It resets on \d{4}-\d\d-01/,
    );
  });

  it('50 concurrent completions near exhaustion: usage never passes the allowance, nothing lost', async () => {
    const { account, key } = await liveKey(2_000);
    const responses = await Promise.all(Array.from({ length: 50 }, () => chat(key, { max_tokens: 100 })));
    const statuses = responses.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    let served = 0;
    for (const r of responses) {
      const body = (await r.json()) as Completion & { error?: { code: string } };
      if (r.status === 200) served += body.usage.total_tokens;
      else expect(body.error?.code).toBe('insufficient_quota');
    }
    const row = await until(
      () => periodOf(account.id),
      (r) => r?.reserved === 0,
    );
    // Every reservation held prompt + max_tokens, so the in-flight worst case always fitted.
    expect(row).toMatchObject({ used: served, reserved: 0 });
    expect(row?.used).toBeLessThanOrEqual(2_000);
  });

  it('streamed calls settle to their usage, and so do streams the client aborts', async () => {
    const { account, key } = await liveKey(100_000);
    const done = await chat(key, { max_tokens: 30, stream: true, stream_options: { include_usage: true } });
    // The limit headers go out with the stream's headers, before the first event.
    expect(done.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(done.headers.get('x-ratelimit-limit-requests')).toBe('100000');
    expect(done.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(done.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(done.headers.get('x-ratelimit-reset-tokens')).toMatch(/^\d+h\d+m[\d.]+s$/);
    const text = await done.text();
    const usageLine = text.split('\n').find((l) => l.includes('"usage":{'));
    const total = (JSON.parse(usageLine?.slice(6) ?? '{}') as Completion).usage.total_tokens;
    const settled = await until(
      () => periodOf(account.id),
      (r) => r?.reserved === 0,
    );
    expect(settled).toMatchObject({ used: total, reserved: 0 });

    const controller = new AbortController();
    const aborted = await chat(key, { max_tokens: 1_000, stream: true }, controller.signal);
    const reader = aborted.body?.getReader();
    await reader?.read();
    controller.abort();
    const row = await until(
      () => periodOf(account.id),
      (r) => r?.reserved === 0,
    );
    expect(row?.reserved).toBe(0);
    expect(row?.used).toBeGreaterThan(total);
    expect(row?.used).toBeLessThan(total + 1_000);
  });

  it('test keys never consume the allowance', async () => {
    const { account, key } = await liveKey(1_000, 'test');
    const res = await chat(key, { max_tokens: 2_000 });
    expect(res.status).toBe(200);
    expect(await periodOf(account.id)).toBeUndefined();
  });

  it('usage counts what the allowance counted: refused calls are metered with 0 tokens', async () => {
    // Issue 39: a 300-token account showed 336 tokens used on the dashboard while its allowance counted 288.
    const { account, key } = await liveKey(300);
    const statuses: number[] = [];
    for (let i = 0; i < 20 && !statuses.includes(429); i += 1) {
      const res = await chat(key, { max_tokens: 20 });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toContain(200);
    expect(statuses.at(-1)).toBe(429);
    // A stream is refused before it opens, as a plain call is.
    const streamed = await chat(key, { max_tokens: 20, stream: true });
    expect(streamed.status).toBe(429);
    await streamed.body?.cancel();
    // Refused before the allowance is asked: never near a model either.
    const tooLong = await chat(key, { max_tokens: 5_000 });
    expect(tooLong.status).toBe(400);
    await tooLong.body?.cancel();
    const row = await until(
      () => periodOf(account.id),
      (r) => r?.reserved === 0,
    );
    expect(row?.used).toBeGreaterThan(0);

    const refusals = statuses.filter((s) => s === 429).length + 1;
    await until(
      async () => {
        await server.services.usage.flush();
        return server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
      },
      (rows) => rows.length === statuses.length + 2,
    );
    const events = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id));
    const refused = events.filter((e) => e.status === 429);
    expect(refused).toHaveLength(refusals);
    for (const e of refused)
      expect(e).toMatchObject({
        model: 'tessera-fast-4k',
        promptTokens: 0,
        completionTokens: 0,
        errorCode: 'insufficient_quota',
      });

    const usage = await gql<{ usage: { summary: { totalRequests: number; totalTokens: number } } }>(
      server,
      { key },
      'query { usage(period: LAST_1H, mode: LIVE) { summary { totalRequests totalTokens } } }',
    );
    expect(usage.errors).toBeUndefined();
    expect(usage.data?.usage.summary).toEqual({ totalRequests: statuses.length + 2, totalTokens: row?.used });
  });
});

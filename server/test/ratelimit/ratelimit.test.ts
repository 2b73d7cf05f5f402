import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/** A clock the test moves by hand, so that admission counts are exact whatever the machine's load. */
let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => nowMs };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

function get(key: string): Promise<Response> {
  return fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
}

async function burst(key: string, n: number): Promise<Response[]> {
  return Promise.all(Array.from({ length: n }, () => get(key)));
}

function statuses(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe('per-plan request limits over HTTP', () => {
  it('a Free key sending 150 requests in a burst gets exactly 100 admitted and 50 429s', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'free' });
    const responses = await burst(key.key, 150);
    expect(statuses(responses)).toEqual({ 200: 100, 429: 50 });

    const admitted = responses.filter((r) => r.status === 200);
    const remaining = admitted.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests')));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const r of admitted) {
      expect(r.headers.get('x-ratelimit-limit-requests')).toBe('100');
      expect(r.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+(\.\d+)?s|1m0s)$/);
      expect(r.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
      expect(Number(r.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThanOrEqual(100_000);
      expect(r.headers.get('x-ratelimit-reset-tokens')).toMatch(/^\d+h\d+m[\d.]+s$/);
    }

    const refused = responses.find((r) => r.status === 429);
    if (!refused) throw new Error('no 429');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('retry-after-ms')).toBe('600');
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('100');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toBe('1m0s');
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await refused.json()).toEqual({
      error: {
        message: 'Rate limit reached: the Free plan allows 100 requests per minute. Try again in 1s.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
  });

  it('refills at 100/60 s: one more after 600 ms, the whole burst after a minute', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'free' });
    expect(statuses(await burst(key.key, 120))).toEqual({ 200: 100, 429: 20 });
    nowMs += 600;
    expect(statuses(await burst(key.key, 5))).toEqual({ 200: 1, 429: 4 });
    nowMs += 60_000;
    expect(statuses(await burst(key.key, 150))).toEqual({ 200: 100, 429: 50 });
  });

  it('a Pro key is not limited at 150', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'pro' });
    const responses = await burst(key.key, 150);
    expect(statuses(responses)).toEqual({ 200: 150 });
    const remaining = responses.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests')));
    expect(Math.min(...remaining)).toBe(850);
    expect(responses[0]?.headers.get('x-ratelimit-limit-requests')).toBe('1000');
  });

  it('test and live are counted apart; keys of one account and mode share the limit', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const test1 = await createKey(server, account.id, 'test');
    const test2 = await createKey(server, account.id, 'test');
    const live = await createKey(server, account.id, 'live');
    expect(statuses([...(await burst(test1.key, 60)), ...(await burst(test2.key, 60))])).toEqual({
      200: 100,
      429: 20,
    });
    expect(statuses(await burst(live.key, 110))).toEqual({ 200: 100, 429: 10 });
  });

  it('an enterprise account is limited at its custom rate, named in the message', async () => {
    const account = await createAccount(server, { plan: 'enterprise', customRequestsPerMinute: 7 });
    const key = await createKey(server, account.id, 'test');
    const responses = await burst(key.key, 10);
    expect(statuses(responses)).toEqual({ 200: 7, 429: 3 });
    const refused = responses.find((r) => r.status === 429);
    const body = (await refused?.json()) as { error: { message: string } };
    expect(body.error.message).toBe(
      'Rate limit reached: the Enterprise plan allows 7 requests per minute. Try again in 9s.',
    );
    expect(refused?.headers.get('retry-after-ms')).toBe('8572');
  });

  it('an allowance that cannot be read leaves the token headers out and the request served', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'free' });
    const allowance = server.services.allowance;
    const original = allowance.status.bind(allowance);
    allowance.status = async () => {
      throw new Error('database unreachable');
    };
    try {
      const res = await get(key.key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('100');
      expect(res.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    } finally {
      allowance.status = original;
    }
  });

  it('an allowance status that throws at once (the in-memory path) leaves the token headers out too', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'free' });
    const allowance = server.services.allowance;
    const original = allowance.status.bind(allowance);
    allowance.status = () => {
      throw new Error('view broken');
    };
    try {
      const res = await get(key.key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('99');
      expect(res.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    } finally {
      allowance.status = original;
    }
  });

  it('requests refused before authentication are not counted and carry no limit headers', async () => {
    const res = await fetch(`${server.url}/v1/models`);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect(server.services.rateLimiter.mode).toBe('memory');
  });
});

import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../../src/modules/keys';
import { type Cluster, startCluster } from '../helpers/cluster';
import { createAccount, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

/** Status and error code of n requests at once, spread round-robin over the urls. */
async function burst(urls: string[], key: string, n: number): Promise<Record<string, number>> {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${urls[i % urls.length]}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    ),
  );
  const counts: Record<string, number> = {};
  for (const r of responses) {
    const label =
      r.status === 429 ? ((await r.json()) as { error: { code: string } }).error.code : String(r.status);
    if (r.status !== 429) await r.arrayBuffer();
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

describe('a key’s own requests per minute, on one instance', () => {
  const nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
  let server: TestServer;
  beforeAll(async () => {
    // A frozen clock: nothing refills during a test, so every count is exact.
    server = await startTestServer({ clock: { now: () => nowMs } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('429 key_rate_limit_exceeded past the key’s limit, naming it; the account’s other keys keep the rest', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const limited = await createKey(server, account.id, 'test', 'limited', { requestsPerMinute: 5 });
    expect(limited.requestsPerMinute).toBe(5);
    const other = await createKey(server, account.id, 'test', 'other');
    expect(await burst([server.url], limited.key, 20)).toEqual({ 200: 5, key_rate_limit_exceeded: 15 });
    const res = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${limited.key}` },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('5');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toEqual({
      message: expect.stringContaining("the key's own limit allows 5 requests per minute"),
      type: 'requests',
      param: null,
      code: 'key_rate_limit_exceeded',
    });
    const sdk = new OpenAI({ apiKey: limited.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await sdk.models.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'key_rate_limit_exceeded', type: 'requests' });
    // The 17 refused requests spent nothing of the plan's 100: the other key gets the remaining 95.
    expect(await burst([server.url], other.key, 100)).toEqual({ 200: 95, rate_limit_exceeded: 5 });
  });

  it('during a rotation’s grace the old and the new key share the key’s limit', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const old = await createKey(server, account.id, 'test', 'rotated', { requestsPerMinute: 6 });
    expect(await burst([server.url], old.key, 2)).toEqual({ 200: 2 });
    const rotated = await rotateKey({
      ctx: server.services.ctx,
      accountId: account.id,
      input: { id: old.id, gracePeriodSeconds: 3600 },
      onChanged: (row) => server.services.keys.applyKey(row),
    });
    // From the rotation both keys count in the replacement's bucket: together 6 a minute, not 6 each.
    const fresh = rotated.key.key;
    expect(await burst([server.url], old.key, 2)).toEqual({ 200: 2 });
    expect(await burst([server.url], fresh, 6)).toEqual({ 200: 4, key_rate_limit_exceeded: 2 });
    expect(await burst([server.url], old.key, 1)).toEqual({ key_rate_limit_exceeded: 1 });
  });

  it('when the plan’s limit binds first, the 429 names the plan', async () => {
    const account = await createAccount(server, { plan: 'free' });
    const a = await createKey(server, account.id, 'test', 'a', { requestsPerMinute: 80 });
    const b = await createKey(server, account.id, 'test', 'b');
    expect(await burst([server.url], b.key, 50)).toEqual({ 200: 50 });
    const counts = await burst([server.url], a.key, 80);
    expect(counts).toEqual({ 200: 50, rate_limit_exceeded: 30 });
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${a.key}` } });
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('the Free plan allows 100 requests per minute');
  });

  it('refuses a key limit above the plan’s, with the field', async () => {
    const account = await createAccount(server, { plan: 'free' });
    await expect(
      createKey(server, account.id, 'test', 'too much', { requestsPerMinute: 101 }),
    ).rejects.toMatchObject({ kind: 'invalid_request', param: 'requestsPerMinute' });
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('a key’s own limit across 4 instances through Redis', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('exactly the key’s limit is admitted over 4 instances, and the plan’s rest to another key', async () => {
    const nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
    cluster = await startCluster(
      4,
      REDIS_URL ?? '',
      { now: () => nowMs },
      { REDIS_COMMAND_TIMEOUT_MS: '2000' },
    );
    const urls = cluster.instances.map((i) => i.url);
    const account = await createAccount(cluster.first, { plan: 'free' });
    const limited = await createKey(cluster.first, account.id, 'test', 'limited', { requestsPerMinute: 30 });
    const other = await createKey(cluster.first, account.id, 'test', 'other');
    expect(await burst(urls, limited.key, 200)).toEqual({ 200: 30, key_rate_limit_exceeded: 170 });
    expect(await burst(urls, other.key, 200)).toEqual({ 200: 70, rate_limit_exceeded: 130 });
    for (const i of cluster.instances) expect(i.services.rateLimiter.metrics.fallbackDecisions).toBe(0);
  }, 120_000);
});

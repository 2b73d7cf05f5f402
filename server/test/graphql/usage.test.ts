/** GraphQL usage against the requests that made it: summary, time series, endpoints, recent errors and filters. */
import { maskKey } from '@tessera/shared';
import { asc, count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { revokeKey } from '../../src/modules/keys';
import { bucketOf, emptyHistogram, quantile } from '../../src/modules/usage/histogram';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql, settleUsage, USAGE_QUERY } from '../helpers/graphql';
import { chatBody, type Sent, type UsageData, useGraphqlUsageSuite } from '../helpers/graphql-usage-suite';
import type { TestServer } from '../helpers/server';

const suite = useGraphqlUsageSuite();
const { send } = suite;
let server: TestServer;
beforeAll(() => {
  server = suite.server;
});

describe('GraphQL usage reflects exactly what was sent', () => {
  it('summary, time series, endpoints and recent errors', async () => {
    const account = await createAccount(server, { plan: 'enterprise', customRequestsPerMinute: 12 });
    const test = await createKey(server, account.id, 'test', 'test key');
    const live = await createKey(server, account.id, 'live', 'live key');
    const old = await createKey(server, account.id, 'test', 'old key');
    await revokeKey({
      ctx: server.services.ctx,
      accountId: account.id,
      keyId: old.id,
      onRevoked: (h) => server.services.keys.forget(h),
    });
    const t = { key: test.key, kind: 'test' as const, masked: maskKey('test', test.key.slice(-4)) };
    const sent: Sent[] = [];
    const chat = '/v1/chat/completions';
    sent.push(await send(t, 'GET', '/v1/models', '/v1/models'));
    sent.push(await send(t, 'GET', '/v1/models/tessera-fast-4k', '/v1/models/:id'));
    sent.push(await send(t, 'GET', '/v1/models/no-such-model', '/v1/models/:id'));
    sent.push(await send(t, 'POST', chat, chat, JSON.stringify({ model: 'tessera-fast-4k' })));
    sent.push(await send(t, 'POST', chat, chat, chatBody()));
    sent.push(
      await send(t, 'POST', chat, chat, chatBody({ stream: true, stream_options: { include_usage: true } })),
    );

    // A stream the client cuts after the first chunk: recorded as 499 with the tokens produced until then.
    const abort = new AbortController();
    const streamed = await fetch(`${server.url}${chat}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json' },
      body: chatBody({ stream: true, max_tokens: 200 }),
      signal: abort.signal,
    });
    const reader = streamed.body?.getReader();
    // Read until some content has streamed, then hang up.
    let received = '';
    while (!/"content":"[^"]/.test(received)) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      received += new TextDecoder().decode(chunk.value);
    }
    abort.abort();
    const abortedId = String(streamed.headers.get('x-request-id'));

    // Until the per-minute limit (12 in test mode) answers 429 twice.
    let limited = 0;
    for (let i = 0; i < 30 && limited < 2; i++) {
      const s = await send(t, 'GET', '/v1/models', '/v1/models');
      sent.push(s);
      if (s.status === 429) limited += 1;
    }
    expect(limited).toBe(2);
    sent.push(
      await send(
        { key: old.key, kind: 'test', masked: maskKey('test', old.key.slice(-4)) },
        'GET',
        '/v1/models',
        '/v1/models',
      ),
    );
    sent.push(await send({ key: live.key, kind: 'live', masked: '' }, 'GET', '/v1/models', '/v1/models'));
    // Unknown key: not this account's usage.
    await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer sk_test_${'N'.repeat(32)}` },
    });

    expect(sent.map((s) => s.status)).toEqual(expect.arrayContaining([200, 404, 400, 429, 401]));
    const total = sent.length + 1;
    const countRows = async () =>
      Number(
        (
          await server.services.ctx.db
            .select({ n: count() })
            .from(usageEvents)
            .where(eq(usageEvents.accountId, account.id))
        )[0]?.n ?? 0,
      );
    await settleUsage(server, countRows, total);
    const events = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id))
      .orderBy(asc(usageEvents.id));
    expect(events).toHaveLength(total);
    const aborted = events.find((e) => e.requestId === abortedId);
    expect(aborted?.status).toBe(499);
    expect(aborted?.completionTokens).toBeGreaterThan(0);
    // Every event is what the client saw, key and tokens included.
    for (const s of sent) {
      const e = events.find((x) => x.requestId === s.requestId);
      expect(e, s.requestId).toMatchObject({ method: s.method, route: s.route, status: s.status });
      if (s.tokens !== null) expect((e?.promptTokens ?? 0) + (e?.completionTokens ?? 0)).toBe(s.tokens);
      if (s.message !== null) expect(e?.errorMessage).toBe(s.message);
    }

    const cookie = await (await import('../helpers/graphql')).sessionCookie(server, account.id);
    const r = await gql<{ usage: UsageData }>(server, { cookie }, USAGE_QUERY, {
      period: 'LAST_24H',
      first: 3,
    });
    expect(r.errors).toBeUndefined();
    const usage = r.data?.usage as UsageData;
    const statuses = events.map((e) => e.status);
    const tokensOf = (e: (typeof events)[number]) => (e.promptTokens ?? 0) + (e.completionTokens ?? 0);
    const histogram = emptyHistogram();
    for (const e of events) histogram[bucketOf(e.latencyMs)] = (histogram[bucketOf(e.latencyMs)] ?? 0) + 1;
    const totalTokens = events.reduce((n, e) => n + tokensOf(e), 0);
    expect(totalTokens).toBeGreaterThan(0);

    expect(usage.summary).toMatchObject({
      totalRequests: total,
      successRate: statuses.filter((s) => s < 400).length / total,
      totalTokens,
      previous: { totalRequests: 0, successRate: null, totalTokens: 0 },
      change: { totalRequests: null, successRate: null, totalTokens: null },
    });
    expect(usage.summary.averageLatencyMs).toBeCloseTo(
      events.reduce((n, e) => n + e.latencyMs, 0) / total,
      2,
    );
    expect(usage.summary.p95LatencyMs).toBeCloseTo(
      quantile(histogram, 0.95, Math.max(...events.map((e) => e.latencyMs))) ?? -1,
      6,
    );
    const allowance = await gql<{ viewer: { allowance: { remaining: number } } }>(
      server,
      { cookie },
      '{ viewer { allowance { remaining } } }',
    );
    expect(usage.summary.tokensRemaining).toBe(allowance.data?.viewer.allowance.remaining);

    expect(usage.bucketSeconds).toBe(3600);
    const sum = (f: (p: UsageData['timeseries'][number]) => number) =>
      usage.timeseries.reduce((n, p) => n + f(p), 0);
    expect(sum((p) => p.requests)).toBe(total);
    expect(sum((p) => p.status2xx)).toBe(statuses.filter((s) => s < 400).length);
    expect(sum((p) => p.status4xx)).toBe(
      statuses.filter((s) => s >= 400 && s < 500 && s !== 429 && s !== 499).length,
    );
    expect(sum((p) => p.status429)).toBe(2);
    expect(sum((p) => p.aborted)).toBe(1);
    expect(sum((p) => p.status5xx)).toBe(0);
    expect(sum((p) => p.tokens)).toBe(totalTokens);
    expect(usage.timeseries.length).toBeGreaterThanOrEqual(24);

    const byRoute = new Map<string, typeof events>();
    for (const e of events)
      byRoute.set(`${e.method} ${e.route}`, [...(byRoute.get(`${e.method} ${e.route}`) ?? []), e]);
    expect(usage.endpoints.map((x) => `${x.method} ${x.path}`).sort()).toEqual([...byRoute.keys()].sort());
    for (const row of usage.endpoints) {
      const list = byRoute.get(`${row.method} ${row.path}`) ?? [];
      expect(row.requests).toBe(list.length);
      expect(row.successRate).toBe(list.filter((e) => e.status < 400).length / list.length);
      expect(row.averageLatencyMs).toBeCloseTo(list.reduce((n, e) => n + e.latencyMs, 0) / list.length, 2);
      expect(row.tokens).toBe(row.path === chat ? list.reduce((n, e) => n + tokensOf(e), 0) : null);
    }
    expect(usage.endpoints.map((x) => x.requests)).toEqual(
      [...usage.endpoints.map((x) => x.requests)].sort((a, b) => b - a),
    );

    // Recent errors: every failure, newest first, through the cursor, three at a time.
    const errorsSeen: UsageData['recentErrors']['edges'][number]['node'][] = [
      ...usage.recentErrors.edges.map((e) => e.node),
    ];
    let page = usage.recentErrors;
    while (page.pageInfo.hasNextPage) {
      const next = await gql<{ usage: UsageData }>(server, { cookie }, USAGE_QUERY, {
        period: 'LAST_24H',
        first: 3,
        after: page.pageInfo.endCursor,
      });
      const nextUsage = next.data?.usage as UsageData;
      page = nextUsage.recentErrors;
      expect(page.edges.length).toBeLessThanOrEqual(3);
      errorsSeen.push(...page.edges.map((e) => e.node));
    }
    const failed = [...events]
      .filter((e) => e.status >= 400)
      .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || b.id - a.id);
    expect(errorsSeen.map((e) => e.requestId)).toEqual(failed.map((e) => e.requestId));
    for (const node of errorsSeen) {
      const s = sent.find((x) => x.requestId === node.requestId);
      if (s) {
        expect(node).toMatchObject({
          status: s.status,
          path: s.route,
          method: s.method,
          maskedKey: s.masked,
        });
        expect(node.message).toBe(s.message);
      } else {
        expect(node).toMatchObject({ requestId: abortedId, status: 499, maskedKey: t.masked });
      }
    }

    // Narrowed to live mode: the one live call only.
    const liveOnly = await gql<{ usage: UsageData }>(server, { cookie }, USAGE_QUERY, {
      period: 'LAST_24H',
      mode: 'LIVE',
    });
    expect(liveOnly.data?.usage.summary.totalRequests).toBe(1);
    const oneKey = await gql<{ usage: UsageData }>(server, { cookie }, USAGE_QUERY, {
      period: 'LAST_7D',
      keyId: old.id,
    });
    expect(oneKey.data?.usage.summary.totalRequests).toBe(1);
    expect(oneKey.data?.usage.recentErrors.edges[0]?.node.status).toBe(401);
    expect(oneKey.data?.usage.bucketSeconds).toBe(3 * 3600);
  });
});

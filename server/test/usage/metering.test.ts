import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents, usageRollups } from '../../src/db/schema';
import { revokeKey } from '../../src/modules/keys';
import { PgUsageStore, UsageRecorder } from '../../src/modules/usage';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { metricValue } from '../helpers/usage';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function get(path: string, authorization?: string): Promise<Response> {
  return fetch(`${server.url}${path}`, { headers: authorization ? { authorization } : {} });
}

describe('metering of REST requests', () => {
  it('records successes, errors and refused known keys with route templates; unknown keys only in metrics', async () => {
    const { account, key } = await createAccountWithKey(server);
    const revoked = await createKey(server, account.id, 'live', 'old');
    await revokeKey({
      ctx: server.services.ctx,
      accountId: account.id,
      keyId: revoked.id,
      onRevoked: (h) => server.services.keys.forget(h),
    });
    const before = metricValue(
      await (await fetch(`${server.metricsUrl}/metrics`)).text(),
      'tessera_unattributed_requests_total',
    );

    const auth = `Bearer ${key.key}`;
    const statuses = [
      (await get('/v1/models', auth)).status,
      (await get('/v1/models/tessera-fast-4k', auth)).status,
      (await get('/v1/models/no-such-model', auth)).status,
      (await get('/v1/models', `Bearer ${revoked.key}`)).status,
      (await get('/v1/models', `Bearer sk_live_${'U'.repeat(32)}`)).status,
      (await get('/v1/models')).status,
    ];
    expect(statuses).toEqual([200, 200, 404, 401, 401, 401]);
    await server.services.usage.flush();

    const rows = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id))
      .orderBy(asc(usageEvents.id));
    expect(rows.map((r) => [r.method, r.route, r.status, r.keyId, r.mode])).toEqual([
      ['GET', '/v1/models', 200, key.id, 'test'],
      ['GET', '/v1/models/:id', 200, key.id, 'test'],
      ['GET', '/v1/models/:id', 404, key.id, 'test'],
      ['GET', '/v1/models', 401, revoked.id, 'live'],
    ]);
    expect(rows[2]).toMatchObject({ errorCode: 'model_not_found', errorType: 'invalid_request_error' });
    expect(rows[2]?.errorMessage).toContain('no-such-model');
    expect(rows[3]).toMatchObject({ errorCode: 'invalid_api_key' });
    for (const r of rows) {
      expect(r.requestId).toMatch(/^req_/);
      expect(r.latencyMs).toBeGreaterThanOrEqual(0);
      expect(r.promptTokens).toBeNull();
    }

    const rollups = await server.services.ctx.db
      .select()
      .from(usageRollups)
      .where(and(eq(usageRollups.accountId, account.id), eq(usageRollups.granularity, 'minute')));
    const hourly = await server.services.ctx.db
      .select()
      .from(usageRollups)
      .where(and(eq(usageRollups.accountId, account.id), eq(usageRollups.granularity, 'hour')));
    for (const set of [rollups, hourly]) {
      expect(set.reduce((n, r) => n + r.requests, 0)).toBe(4);
      expect(set.reduce((n, r) => n + r.errors, 0)).toBe(2);
      expect(set.reduce((n, r) => n + r.latencyHistogram.reduce((a, b) => a + b, 0), 0)).toBe(4);
      expect(set.every((r) => r.tokenRequests === 0)).toBe(true);
    }
    const classes = rollups.map((r) => `${r.route} ${r.statusClass} ${r.requests}`).sort();
    expect(classes).toEqual([
      '/v1/models 2xx 1',
      '/v1/models 4xx 1',
      '/v1/models/:id 2xx 1',
      '/v1/models/:id 4xx 1',
    ]);

    const metrics = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    expect(metricValue(metrics, 'tessera_unattributed_requests_total') - before).toBe(2);
    expect(
      metricValue(metrics, 'tessera_http_requests_total', '{method="GET",route="/v1/models",status="401"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(metrics).not.toContain(account.id);
    expect(metrics).not.toContain(key.id);
  });

  it('adds into existing rollup rows across batches', async () => {
    const { account, key } = await createAccountWithKey(server);
    for (let batch = 0; batch < 3; batch++) {
      await Promise.all([1, 2].map(() => get('/v1/models', `Bearer ${key.key}`)));
      await server.services.usage.flush();
    }
    const [row] = await server.services.ctx.db
      .select()
      .from(usageRollups)
      .where(and(eq(usageRollups.accountId, account.id), eq(usageRollups.granularity, 'hour')));
    expect(row?.requests).toBe(6);
    expect(row?.latencyHistogram.reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('prunes raw events and minute rollups past their retention, keeping hour and day rollups', async () => {
    const { account, key } = await createAccountWithKey(server);
    const { ctx } = server.services;
    const recorder = new UsageRecorder(
      new PgUsageStore(ctx.db),
      { clock: ctx.clock, logger: ctx.logger, metrics: server.services.metrics },
      {
        maxBuffered: 100,
        batchSize: 100,
        flushIntervalMs: 60_000,
        eventRetentionDays: 30,
        minuteRollupRetentionDays: 3,
      },
    );
    const base = {
      accountId: account.id,
      keyId: key.id,
      mode: 'test' as const,
      method: 'GET',
      route: '/v1/models',
      status: 200,
      latencyMs: 5,
      model: null,
      deployment: null,
      promptTokens: null,
      completionTokens: null,
      costMicros: null,
      errorType: null,
      errorCode: null,
      errorMessage: null,
    };
    const day = 86_400_000;
    recorder.record({ ...base, requestId: 'req_old', occurredAt: Date.now() - 40 * day });
    recorder.record({ ...base, requestId: 'req_week', occurredAt: Date.now() - 7 * day });
    recorder.record({ ...base, requestId: 'req_new', occurredAt: Date.now() });
    await recorder.flush();
    await recorder.stop();
    const events = await ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    expect(events.map((e) => e.requestId).sort()).toEqual(['req_new', 'req_week']);
    const rollups = await ctx.db.select().from(usageRollups).where(eq(usageRollups.accountId, account.id));
    const count = (g: string) => rollups.filter((r) => r.granularity === g).length;
    expect([count('minute'), count('hour'), count('day')]).toEqual([1, 3, 3]);
  });

  it('writes events whose text holds a NUL (Postgres text cannot), without the NUL', async () => {
    const { account } = await createAccountWithKey(server);
    const res = await get(
      `/v1/models/${encodeURIComponent('a\u0000b')}`,
      `Bearer ${(await createKey(server, account.id, 'test', 'nul')).key}`,
    );
    expect(res.status).toBe(404);
    await server.services.usage.flush();
    const rows = await server.services.ctx.db
      .select()
      .from(usageEvents)
      .where(eq(usageEvents.accountId, account.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.errorMessage).toContain("'ab'");
  });
});

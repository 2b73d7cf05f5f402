import type { ModelList } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server';
import { TrpcTestClient } from '../../../test/helpers/trpc-client';

interface PlanStatus {
  plan: string;
  limits: { requestsPerMinute: number; monthlyTokens: number };
  allowance: { limit: number; used: number; remaining: number; resetsAt: string };
}

describe('dashboard procedures (models.list, plan.status)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('need a session', async () => {
    const client = new TrpcTestClient(server.url);
    for (const path of ['models.list', 'plan.status']) {
      const res = await client.query(path);
      expect(res.status).toBe(401);
      expect(res.error?.data.code).toBe('UNAUTHORIZED');
    }
  });

  it('list the catalogue and the account plan for a signed-in account', async () => {
    const client = new TrpcTestClient(server.url);
    const signUp = await client.mutation('auth.signUp', {
      email: 'plan@example.com',
      password: 'correct horse battery',
    });
    expect(signUp.status).toBe(200);

    const models = await client.query<ModelList>('models.list');
    expect(models.data?.object).toBe('list');
    const ids = models.data?.data.map((m) => m.id) ?? [];
    expect(ids).toEqual(
      expect.arrayContaining(['tessera-fast-4k', 'tessera-reason-8k', 'tessera-long-100k']),
    );
    expect(models.data?.data.find((m) => m.id === 'tessera-long-100k')?.context_window).toBe(100_000);

    const plan = await client.query<PlanStatus>('plan.status');
    expect(plan.data?.plan).toBe('free');
    expect(plan.data?.limits.requestsPerMinute).toBe(100);
    const allowance = plan.data?.allowance;
    expect(allowance?.limit).toBe(plan.data?.limits.monthlyTokens);
    expect((allowance?.used ?? -1) + (allowance?.remaining ?? -1)).toBe(allowance?.limit);
    const resets = new Date(allowance?.resetsAt ?? '');
    expect(resets.getUTCDate()).toBe(1);
    expect(resets.getTime()).toBeGreaterThan(Date.now());
  });
});

/** The p95 latency the dashboard and GraphQL show: never above the slowest request, the same for any period. */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import type { UsageEvent } from '../../src/modules/usage';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql, sessionCookie, settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const SUMMARY = /* GraphQL */ `
  query P95($period: UsagePeriod!) {
    usage(period: $period) {
      summary { totalRequests p95LatencyMs }
      timeseries { requests p95LatencyMs }
    }
  }
`;

interface P95Data {
  usage: {
    summary: { totalRequests: number; p95LatencyMs: number | null };
    timeseries: { requests: number; p95LatencyMs: number | null }[];
  };
}

function exactQuantile(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

describe('p95 latency', () => {
  it('is never above the slowest request, agrees across periods, and is within one bucket (9 %)', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id, 'test', 'p95');
    // The reported shape: most requests fast, a tail of slow ones that ends at 730 ms, in the last hour.
    const latencies = [
      ...Array.from({ length: 180 }, (_, i) => 40 + (i % 60)),
      ...Array.from({ length: 20 }, (_, i) => 560 + i * 8.5),
    ];
    const now = Date.now();
    latencies.forEach((latencyMs, i) => {
      const event: UsageEvent = {
        occurredAt: now - 30 * 60_000 + i * 1_000,
        requestId: `req_p95_${i}`,
        accountId: account.id,
        keyId: key.id,
        mode: 'test',
        method: 'POST',
        route: '/v1/chat/completions',
        status: 200,
        latencyMs,
        model: null,
        deployment: null,
        promptTokens: null,
        completionTokens: null,
        costMicros: null,
        errorType: null,
        errorCode: null,
        errorMessage: null,
      };
      server.services.usage.record(event);
    });
    const written = async () =>
      Number(
        (
          await server.services.ctx.db
            .select({ n: count() })
            .from(usageEvents)
            .where(eq(usageEvents.accountId, account.id))
        )[0]?.n ?? 0,
      );
    await settleUsage(server, written, latencies.length);

    const cookie = await sessionCookie(server, account.id);
    const sorted = [...latencies].sort((a, b) => a - b);
    const slowest = sorted.at(-1) ?? 0;
    const exact = exactQuantile(sorted, 0.95);
    const seen: number[] = [];
    for (const period of ['LAST_24H', 'LAST_7D', 'LAST_30D']) {
      const r = await gql<P95Data>(server, { cookie }, SUMMARY, { period });
      expect(r.errors).toBeUndefined();
      const usage = r.data?.usage;
      expect(usage?.summary.totalRequests).toBe(latencies.length);
      const p95 = usage?.summary.p95LatencyMs ?? Number.NaN;
      expect(p95, period).toBeLessThanOrEqual(slowest);
      expect(Math.abs(p95 - exact) / exact, period).toBeLessThanOrEqual(0.09);
      for (const point of usage?.timeseries ?? []) {
        if (point.requests > 0) expect(point.p95LatencyMs ?? Number.NaN).toBeLessThanOrEqual(slowest);
      }
      seen.push(p95);
    }
    expect(new Set(seen).size).toBe(1);
  });
});

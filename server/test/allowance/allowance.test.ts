import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowancePeriods } from '../../src/db/schema';
import { isServiceError, type ServiceError } from '../../src/errors';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import type { Principal } from '../../src/modules/keys';
import { createAccount } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => nowMs };
let server: TestServer;
let allowance: MonthlyTokenAllowance;

beforeAll(async () => {
  server = await startTestServer({ clock });
  allowance = new MonthlyTokenAllowance(server.services.ctx);
});
afterAll(async () => {
  await server?.close();
});

async function principalFor(
  monthlyTokens: number,
  mode: 'live' | 'test' = 'live',
  plan: Principal['plan'] = 'free',
): Promise<Principal> {
  const account = await createAccount(server, { plan });
  return {
    keyId: 'key_x',
    accountId: account.id,
    mode,
    last4: 'abcd',
    plan,
    limits: { requestsPerMinute: 100, monthlyTokens },
  };
}

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isServiceError(err)) throw new Error(`expected a ServiceError, got ${String(err)}`);
  return err;
}

async function rowOf(accountId: string) {
  const rows = await server.services.ctx.db
    .select()
    .from(allowancePeriods)
    .where(eq(allowancePeriods.accountId, accountId));
  return rows;
}

describe('monthly token allowance (Postgres)', () => {
  it('reserves, then settles to the real usage, once', async () => {
    const p = await principalFor(100_000);
    const r = await allowance.reserve(p, 5_000);
    expect(await allowance.status(p)).toMatchObject({ limit: 100_000, used: 0, remaining: 95_000 });
    await r.settle(1_234);
    await r.settle(1_234);
    await r.settle(99_999);
    expect(await allowance.status(p)).toMatchObject({ used: 1_234, remaining: 98_766 });
    expect(await rowOf(p.accountId)).toMatchObject([{ periodStart: '2026-11-01', used: 1_234, reserved: 0 }]);
  });

  it('refuses what does not fit: 429 insufficient_quota, not retryable, naming the reset', async () => {
    const p = await principalFor(10_000);
    await (await allowance.reserve(p, 9_000)).settle(9_000);
    const partial = await refusal(allowance.reserve(p, 2_000));
    expect(partial).toMatchObject({ kind: 'insufficient_quota', code: 'insufficient_quota' });
    expect(partial.message).toBe(
      'This request needs up to 2,000 tokens (prompt plus max_tokens) but only 1,000 of your monthly token allowance remain: the Free plan includes 10,000 tokens per month. Lower max_tokens, or wait: It resets on 2026-12-01 at 00:00 UTC.',
    );
    expect(partial.retryable).toBe(false);
    await (await allowance.reserve(p, 1_000)).settle(1_000);
    const used = await refusal(allowance.reserve(p, 1));
    expect(used.message).toBe(
      'You have used up your monthly token allowance: the Free plan includes 10,000 tokens per month. It resets on 2026-12-01 at 00:00 UTC.',
    );
    expect(used.retryAfterMs).toBe((8 * 86_400 + 12 * 3_600) * 1000);
  });

  it('a reservation larger than the whole allowance is refused without touching the database', async () => {
    const p = await principalFor(1_000);
    expect((await refusal(allowance.reserve(p, 1_001))).kind).toBe('insufficient_quota');
    expect(await rowOf(p.accountId)).toEqual([]);
  });

  it('test keys never consume nor get refused', async () => {
    const p = await principalFor(10, 'test');
    const r = await allowance.reserve(p, 1_000_000);
    await r.settle(1_000_000);
    expect(await rowOf(p.accountId)).toEqual([]);
  });

  it('a new month starts afresh; a reservation made before the turn settles into its own month', async () => {
    const p = await principalFor(10_000);
    nowMs = Date.UTC(2026, 10, 30, 23, 59, 59);
    const late = await allowance.reserve(p, 10_000);
    nowMs = Date.UTC(2026, 11, 1, 0, 0, 1);
    expect(await allowance.status(p)).toMatchObject({ used: 0, remaining: 10_000 });
    await (await allowance.reserve(p, 10_000)).settle(10);
    await late.settle(7_000);
    const rows = await rowOf(p.accountId);
    expect(rows.map((r) => [r.periodStart, r.used, r.reserved]).sort()).toEqual([
      ['2026-11-01', 7_000, 0],
      ['2026-12-01', 10, 0],
    ]);
    nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
  });

  it('50 concurrent reservations near exhaustion: never more admitted than fits, nothing lost', async () => {
    const p = await principalFor(100_000);
    await (await allowance.reserve(p, 95_000)).settle(95_000);
    // Each call holds prompt + cap = 1,000 tokens; 5 fit in what remains.
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => allowance.reserve(p, 1_000)));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    expect(admitted).toHaveLength(5);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as ServiceError).kind).toBe('insufficient_quota');
    }
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 95_000, reserved: 5_000 }]);
    await Promise.all(admitted.map((r, i) => r.value.settle(600 + i)));
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 95_000 + 3_010, reserved: 0 }]);
  });

  it('50 concurrent completions that reserve, run and settle: usage never passes the limit', async () => {
    const p = await principalFor(100_000);
    await (await allowance.reserve(p, 90_000)).settle(90_000);
    let settledTotal = 0;
    const completions = Array.from({ length: 50 }, async (_, i) => {
      const r = await allowance.reserve(p, 1_000);
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 30));
      const used = 500 + ((i * 37) % 500);
      await r.settle(used);
      settledTotal += used;
      return used;
    });
    const results = await Promise.allSettled(completions);
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    // At least the 10 that fit up front; settling early frees room for more.
    expect(admitted).toBeGreaterThanOrEqual(10);
    const [row] = await rowOf(p.accountId);
    expect(row).toMatchObject({ used: 90_000 + settledTotal, reserved: 0 });
    expect(row?.used).toBeLessThanOrEqual(100_000);
  });

  it('a reservation whose process died is given back by the sweep, once, and a late settle still counts', async () => {
    const p = await principalFor(10_000);
    const dying = new MonthlyTokenAllowance(server.services.ctx, { reservationTtlMs: 1 });
    const lost = await dying.reserve(p, 6_000);
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 0, reserved: 6_000 }]);
    await new Promise((r) => setTimeout(r, 20));
    // Every instance sweeps; each expired reservation is released exactly once.
    const other = new MonthlyTokenAllowance(server.services.ctx);
    const released = await Promise.all([dying.sweep(), other.sweep(), allowance.sweep()]);
    expect(released.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 0, reserved: 0 }]);
    await (await allowance.reserve(p, 10_000)).settle(100);
    await lost.settle(2_500);
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 2_600, reserved: 0 }]);
  });

  it('settling is idempotent in the database too: a retried settle changes nothing', async () => {
    const { settleReservation } = await import('../../src/modules/allowance/statements');
    const p = await principalFor(10_000);
    await allowance.reserve(p, 1_000);
    const { allowanceReservations } = await import('../../src/db/schema');
    const [held] = await server.services.ctx.db
      .select()
      .from(allowanceReservations)
      .where(eq(allowanceReservations.accountId, p.accountId));
    if (!held) throw new Error('no reservation row');
    const input = { id: held.id, accountId: p.accountId, period: held.periodStart, used: 400 };
    expect(await settleReservation(server.services.ctx.db, input)).toEqual({ used: 400, reserved: 0 });
    expect(await settleReservation(server.services.ctx.db, input)).toBeUndefined();
    expect(await rowOf(p.accountId)).toMatchObject([{ used: 400, reserved: 0 }]);
  });

  it('first reads of many accounts in one turn are batched and each gets its own counters', async () => {
    const writer = new MonthlyTokenAllowance(server.services.ctx);
    const principals = await Promise.all(Array.from({ length: 12 }, () => principalFor(50_000)));
    await Promise.all(
      principals.map(async (p, i) => (await writer.reserve(p, 100 * (i + 1))).settle(10 * i)),
    );
    const reader = new MonthlyTokenAllowance(server.services.ctx);
    const statuses = await Promise.all(principals.map((p) => reader.status(p)));
    expect(statuses.map((s) => s.used)).toEqual(principals.map((_, i) => 10 * i));
    expect(statuses.map((s) => s.remaining)).toEqual(principals.map((_, i) => 50_000 - 10 * i));
  });

  it('status comes from memory between refreshes and catches up with other instances', async () => {
    const p = await principalFor(100_000);
    const other = new MonthlyTokenAllowance(server.services.ctx);
    expect((await allowance.status(p)).remaining).toBe(100_000);
    await (await other.reserve(p, 3_000)).settle(3_000);
    expect((await allowance.status(p)).remaining).toBe(100_000);
    nowMs += 1_001;
    await allowance.status(p);
    await new Promise((r) => setTimeout(r, 100));
    expect((await allowance.status(p)).remaining).toBe(97_000);
  });
});

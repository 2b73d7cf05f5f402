/** Token allowance leases shared by instances: accounting, the limit, repeated drains and the sweep. */
import { beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/errors';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import { drainLease } from '../../src/modules/allowance/statements';
import { useLeaseSuite } from '../helpers/lease-suite';
import type { TestServer } from '../helpers/server';

const suite = useLeaseSuite();
const { instance, principalFor, period, leaseRows, closeAll } = suite;
let server: TestServer;
beforeAll(() => {
  server = suite.server;
});

describe('token allowance leases', () => {
  it('calls are admitted in memory; usage shows at once in status and reaches the database when flushed', async () => {
    const a = instance();
    const p = await principalFor(1_000_000);
    for (let i = 0; i < 5; i++) await (await a.reserve(p, 100)).settle(60);
    // One lease row of 1,000 tokens in the database, nothing written yet.
    expect(await period(p.accountId)).toMatchObject({ used: 0, reserved: 1_000 });
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    expect(await a.status(p)).toMatchObject({ used: 300, remaining: 1_000_000 - 300 });
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 300, reserved: 700 });
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: 300, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
    expect(await a.status(p)).toMatchObject({ used: 300, remaining: 1_000_000 - 300 });
  });

  it('three instances, 300 concurrent calls: every token settled is counted once, nothing stays reserved', async () => {
    const instances = [instance(), instance(), instance()];
    const p = await principalFor(1_000_000);
    let total = 0;
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const allowance = instances[i % 3] as MonthlyTokenAllowance;
        const r = await allowance.reserve(p, 200);
        await new Promise((resolve) => setTimeout(resolve, i % 7));
        const used = 50 + ((i * 37) % 150);
        total += used;
        await r.settle(used);
        // Flushes race with draws and settles, as the timer's would.
        if (i % 25 === 0) await allowance.flushLeases();
      }),
    );
    await Promise.all(instances.map((a) => a.flushLeases()));
    await closeAll(instances);
    expect(await period(p.accountId)).toMatchObject({ used: total, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
  });

  it('near the limit, calls are reserved one by one: the allowance is used to the last call that fits', async () => {
    const instances = [instance(), instance()];
    // 40,000 tokens: leases while at least 16,000 remain, exact reservations after.
    const p = await principalFor(40_000);
    let admitted = 0;
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const results = await Promise.allSettled(instances.map((a) => a.reserve(p, 500)));
      let refusedNow = 0;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          admitted += 500;
          await r.value.settle(500);
        } else {
          expect(isServiceError(r.reason) && r.reason.kind).toBe('insufficient_quota');
          refusedNow += 1;
        }
      }
      refused += refusedNow;
      // A refusal may come while the other instance's lease still holds tokens: they return when it closes.
      if (refusedNow > 0) await closeAll(instances);
      else await Promise.all(instances.map((a) => a.flushLeases()));
      if (refusedNow === instances.length) break;
    }
    await closeAll(instances);
    expect(refused).toBeGreaterThan(0);
    expect(admitted).toBe(40_000);
    expect(await period(p.accountId)).toMatchObject({ used: 40_000, reserved: 0 });
  });

  it('a lease never takes what the limit cannot give, whatever the instances believe', async () => {
    const a = instance();
    const b = instance();
    const p = await principalFor(40_000);
    // b believes the account untouched; a fills it almost to the limit with exact reservations.
    expect((await b.status(p)).remaining).toBe(40_000);
    await (await a.reserve(p, 39_000)).settle(39_000);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => b.reserve(p, 500)));
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    expect(admitted).toBe(2);
    const row = await period(p.accountId);
    expect((row?.used ?? 0) + (row?.reserved ?? 0)).toBeLessThanOrEqual(40_000);
  });

  it('a drain repeated after a lost reply changes nothing', async () => {
    const a = instance();
    const p = await principalFor(1_000_000);
    await a.reserve(p, 100);
    const [lease] = await leaseRows(p.accountId);
    if (!lease) throw new Error('no lease row');
    const input = {
      id: lease.id,
      accountId: p.accountId,
      period: lease.periodStart,
      used: 250,
      heldBefore: 1_000,
      heldAfter: 750,
      ttlMs: 60_000,
    };
    const db = server.services.ctx.db;
    expect(await drainLease(db, input)).toEqual({ used: 250, reserved: 750 });
    expect(await drainLease(db, input)).toBeUndefined();
    expect(await period(p.accountId)).toMatchObject({ used: 250, reserved: 750 });
  });

  it('an instance that dies: its lease is given back by the sweep', async () => {
    const dying = new MonthlyTokenAllowance(server.services.ctx, {
      leaseTokens: 1_000,
      reservationTtlMs: 1,
      leaseFlushMs: 60_000,
    });
    const p = await principalFor(1_000_000);
    await dying.reserve(p, 100);
    expect(await period(p.accountId)).toMatchObject({ reserved: 1_000 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await instance().sweep()).toBe(1);
    expect(await period(p.accountId)).toMatchObject({ used: 0, reserved: 0 });
  });
});

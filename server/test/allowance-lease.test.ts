import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client';
import { allowancePeriods, allowanceReservations } from '../src/db/schema';
import { asUnavailable, isServiceError } from '../src/errors';
import { MonthlyTokenAllowance } from '../src/modules/allowance';
import { drainLease } from '../src/modules/allowance/statements';
import type { Principal } from '../src/modules/keys';
import { createAccount, createKey } from './helpers/fixtures';
import { startTestServer, type TestServer } from './helpers/server';

let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => nowMs };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

/** Instances as separate servers would have them: leases of 1,000 tokens, written only when flushed here. */
function instance(): MonthlyTokenAllowance {
  return new MonthlyTokenAllowance(server.services.ctx, {
    leaseTokens: 1_000,
    leaseMaxAgeMs: 2_000,
    leaseFlushMs: 60_000,
  });
}

async function principalFor(monthlyTokens: number): Promise<Principal> {
  const account = await createAccount(server, { plan: 'pro' });
  return {
    keyId: 'key_x',
    accountId: account.id,
    mode: 'live',
    last4: 'abcd',
    plan: 'pro',
    limits: { requestsPerMinute: 1_000, monthlyTokens },
  };
}

async function period(accountId: string) {
  const [row] = await server.services.ctx.db
    .select()
    .from(allowancePeriods)
    .where(eq(allowancePeriods.accountId, accountId));
  return row;
}

async function leaseRows(accountId: string) {
  return server.services.ctx.db
    .select()
    .from(allowanceReservations)
    .where(eq(allowanceReservations.accountId, accountId));
}

/** Ages every lease past its maximum age, then flushes: every lease whose calls are done is closed. */
async function closeAll(instances: MonthlyTokenAllowance[]): Promise<void> {
  nowMs += 2_001;
  await Promise.all(instances.map((a) => a.flushLeases()));
}

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

describe('leases on the real server', () => {
  it('live calls of a Pro key are admitted from a lease and their usage is written by the timer', async () => {
    const account = await createAccount(server, { plan: 'pro' });
    const { key } = await createKey(server, account.id, 'live');
    let total = 0;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'tessera-fast-4k',
          max_tokens: 20,
          messages: [{ role: 'user', content: 'Tell me about rivers' }],
        }),
      });
      expect(res.status).toBe(200);
      total += ((await res.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
      // The next response's headers already count this call, before anything is written.
    }
    const status = await server.services.allowance.status({
      keyId: 'key_x',
      accountId: account.id,
      mode: 'live',
      last4: 'abcd',
      plan: 'pro',
      limits: { requestsPerMinute: 1_000, monthlyTokens: 10_000_000 },
    });
    expect(status.used).toBe(total);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await period(account.id))?.used !== total) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await period(account.id))?.used).toBe(total);
  });
});

/** Fails like postgres.js does when Postgres cannot be reached. */
const connectionError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

/**
 * The test database as an instance would see it through a network that fails: every call fails while `down`
 * is set, and with `loseReply` the next statement commits but its answer never arrives.
 */
function unreliable(db: Db) {
  const state = { down: false, loseReply: false };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.down) throw connectionError('ECONNREFUSED');
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop !== 'execute' || !state.loseReply) return result;
        state.loseReply = false;
        return Promise.resolve(result).then(() => {
          throw connectionError('ECONNRESET');
        });
      };
    },
  });
  return { db: wrapped, state };
}

function unreliableInstance(options: { reservationTtlMs?: number } = {}) {
  const { db, state } = unreliable(server.services.ctx.db);
  const allowance = new MonthlyTokenAllowance(
    { ...server.services.ctx, db },
    { leaseTokens: 1_000, leaseMaxAgeMs: 2_000, leaseFlushMs: 60_000, ...options },
  );
  return { allowance, state };
}

/** A reservation, or the error that refused it. */
const attempt = (a: MonthlyTokenAllowance, p: Principal, tokens: number) =>
  a.reserve(p, tokens).then(
    (r) => ({ ok: true as const, r }),
    (err: unknown) => ({ ok: false as const, err }),
  );

function expectUnavailable(err: unknown): void {
  expect(asUnavailable(err)).toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
  expect(asUnavailable(err)?.headers['retry-after']).toBe('1');
}

describe('leases while the database cannot be reached', () => {
  it('calls go on drawing on the tokens a lease holds past its age, then get a 503; the usage is written once when it returns', async () => {
    const { allowance: a, state } = unreliableInstance();
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(60);
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 60, reserved: 940 });

    state.down = true;
    await (await a.reserve(p, 100)).settle(90);
    // Its usage cannot be written: this instance learns that the database cannot be reached.
    await a.flushLeases();
    nowMs += 5_000;
    // Past its age: a healthy database would see it closed here; unreachable, it is kept.
    await a.flushLeases();
    let served = 150;
    let admitted = 0;
    for (;;) {
      const result = await attempt(a, p, 100);
      if (!result.ok) {
        expectUnavailable(result.err);
        break;
      }
      await result.r.settle(90);
      served += 90;
      admitted += 1;
      if (admitted % 3 === 0) await a.flushLeases();
    }
    // 940 held, 90 used: nine more calls drawing 100 and using 90 each fit, the tenth would not.
    expect(admitted).toBe(9);
    expect(await a.status(p)).toMatchObject({ used: served });
    expect(await period(p.accountId)).toMatchObject({ used: 60, reserved: 940 });

    state.down = false;
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: served, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
    // And it is a lease again once the database answers.
    await (await a.reserve(p, 100)).settle(100);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: served + 100, reserved: 0 });
  });

  it("stops drawing at half the lease row's expiry, tokens left or not: the sweep elsewhere may release it after", async () => {
    const { allowance: a, state } = unreliableInstance({ reservationTtlMs: 10_000 });
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(10);
    state.down = true;
    nowMs += 4_900;
    const late = await attempt(a, p, 100);
    expect(late.ok).toBe(true);
    if (late.ok) await late.r.settle(10);
    nowMs += 200;
    const past = await attempt(a, p, 100);
    expect(past.ok).toBe(false);
    if (!past.ok) expectUnavailable(past.err);
    state.down = false;
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 20, reserved: 0 });
  });

  it('a kept lease draws only on what it holds: never past the limit however long the outage', async () => {
    const { allowance: a, state } = unreliableInstance();
    const b = new MonthlyTokenAllowance(server.services.ctx);
    // 20,000 tokens: a takes a lease of 1,000 (16 leases' worth left), b reserves the rest exactly.
    const p = await principalFor(20_000);
    await (await a.reserve(p, 100)).settle(100);
    state.down = true;
    await a.flushLeases();
    nowMs += 3_000;
    await a.flushLeases();
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => b.reserve(p, 500)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(38);
    for (const r of results) if (r.status === 'fulfilled') await r.value.settle(500);
    let admitted = 0;
    for (let result = await attempt(a, p, 100); result.ok; result = await attempt(a, p, 100)) {
      await result.r.settle(100);
      admitted += 1;
    }
    expect(admitted).toBe(9);
    state.down = false;
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 20_000, reserved: 0 });
  });

  it('a drain whose answer was lost is repeated as it was: usage written once', async () => {
    const { allowance: a, state } = unreliableInstance();
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(70);
    state.loseReply = true;
    await a.flushLeases();
    // It committed; this instance cannot know, and serves more meanwhile.
    expect(await period(p.accountId)).toMatchObject({ used: 70, reserved: 930 });
    await (await a.reserve(p, 100)).settle(50);
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 120, reserved: 880 });
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: 120, reserved: 0 });
  });

  it('a lease row the sweep released meanwhile: its usage counts once, whether the lost drain committed or not', async () => {
    for (const loseReply of [false, true]) {
      const { allowance: a, state } = unreliableInstance({ reservationTtlMs: 1 });
      const p = await principalFor(1_000_000);
      await (await a.reserve(p, 100)).settle(70);
      // Either the database cannot be reached, or the drain commits and its answer is lost.
      if (loseReply) state.loseReply = true;
      else state.down = true;
      await a.flushLeases();
      state.down = false;
      await new Promise((r) => setTimeout(r, 20));
      expect(await instance().sweep()).toBeGreaterThanOrEqual(1);
      await a.flushLeases();
      expect(await period(p.accountId)).toMatchObject({ used: 70, reserved: 0 });
    }
  });

  it("each drain moves the lease row's expiry forward, so a writing instance's lease is never swept", async () => {
    const a = instance();
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(10);
    const [before] = await leaseRows(p.accountId);
    await new Promise((r) => setTimeout(r, 5));
    await a.flushLeases();
    const [after] = await leaseRows(p.accountId);
    expect(after?.expiresAt.getTime()).toBeGreaterThan(before?.expiresAt.getTime() ?? Infinity);
    await closeAll([a]);
  });
});

/**
 * Token allowance leases while the database cannot be reached: kept leases, 503s, lost replies, the sweep;
 * and the next lease taken in the background, so that calls do not wait for the database when one runs out.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/db/client';
import { asUnavailable } from '../../src/errors';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import type { MonthlyAllowanceOptions } from '../../src/modules/allowance/monthly';
import type { Principal } from '../../src/modules/keys';
import { useLeaseSuite } from '../helpers/lease-suite';
import type { TestServer } from '../helpers/server';

// The tests move the clock themselves, past a lease's age or half its row's expiry.
let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
const suite = useLeaseSuite({
  now: () => nowMs,
  advance: (ms) => {
    nowMs += ms;
  },
});
const { instance, principalFor, period, leaseRows, closeAll } = suite;
let server: TestServer;
beforeAll(() => {
  server = suite.server;
});

/** Fails like postgres.js does when Postgres cannot be reached. */
const connectionError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

/**
 * The test database as an instance would see it through a network that fails: every call fails while `down`
 * is set, and with `loseReply` the next statement commits but its answer never arrives. `writes` counts the
 * statements sent with `execute` (every write of the allowance; the views' reads are selects).
 */
function unreliable(db: Db) {
  const state = { down: false, loseReply: false, writes: 0 };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'execute') state.writes += 1;
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

function unreliableInstance(options: MonthlyAllowanceOptions = {}) {
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
  expect(asUnavailable(err)).toMatchObject({ retryable: true, retryAfterMs: 1_000 });
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

describe('the next lease', () => {
  it('is taken in the background once the current one is three quarters through its age: the call that finds it aged out does not wait', async () => {
    const { allowance: a, state } = unreliableInstance();
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(50);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    nowMs += 1_400;
    await (await a.reserve(p, 100)).settle(50);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    nowMs += 200;
    // 1.6 s of its 2 s: this call is admitted from it, and the next lease is taken meanwhile.
    await (await a.reserve(p, 100)).settle(50);
    await vi.waitFor(async () => expect(await leaseRows(p.accountId)).toHaveLength(2));
    nowMs += 500;
    const writes = state.writes;
    const late = await a.reserve(p, 100);
    expect(state.writes).toBe(writes);
    await late.settle(50);
    await a.flushLeases();
    // The first lease, past its age and done, is closed; the second holds what it has not served.
    expect(await period(p.accountId)).toMatchObject({ used: 200, reserved: 950 });
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: 200, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
  });

  it('is taken in the background once the current one has less than a quarter of its tokens free', async () => {
    const { allowance: a, state } = unreliableInstance();
    const p = await principalFor(1_000_000);
    for (let i = 0; i < 7; i++) await (await a.reserve(p, 100)).settle(100);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    // 300 free, 200 once this call draws: the next lease is taken.
    const eighth = await a.reserve(p, 100);
    await vi.waitFor(async () => expect(await leaseRows(p.accountId)).toHaveLength(2));
    await eighth.settle(100);
    const writes = state.writes;
    for (let i = 0; i < 5; i++) await (await a.reserve(p, 100)).settle(100);
    expect(state.writes).toBe(writes);
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: 1_300, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
  });

  it('one that cannot be taken fails no call: the current lease serves, and the next is taken when the database answers', async () => {
    const { allowance: a, state } = unreliableInstance();
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(100);
    nowMs += 1_600;
    state.down = true;
    await (await a.reserve(p, 100)).settle(100);
    // Give the failed background take its turn.
    await new Promise((r) => setTimeout(r, 10));
    expect(await a.status(p)).toMatchObject({ used: 200 });
    state.down = false;
    await a.flushLeases();
    nowMs += 300;
    await (await a.reserve(p, 100)).settle(100);
    await vi.waitFor(async () => expect(await leaseRows(p.accountId)).toHaveLength(2));
    await closeAll([a]);
    expect(await period(p.accountId)).toMatchObject({ used: 300, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
  });
});

describe('an idle lease', () => {
  it('takes calls that come seconds apart without a database write, and gives its tokens back once idle for 5 s (the defaults)', async () => {
    // The defaults: a lease takes calls for 30 s, or until 5 s pass without one.
    const { allowance: a, state } = unreliableInstance({ leaseMaxAgeMs: undefined, leaseIdleMs: undefined });
    const p = await principalFor(1_000_000);
    await (await a.reserve(p, 100)).settle(50);
    const writes = state.writes;
    for (let i = 0; i < 4; i++) {
      nowMs += 4_500;
      await (await a.reserve(p, 100)).settle(50);
    }
    // 18 s of calls 4.5 s apart, all admitted from the first lease.
    expect(state.writes).toBe(writes);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    nowMs += 4_900;
    await a.flushLeases();
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    nowMs += 100;
    await a.flushLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 250, reserved: 0 });
    expect(await leaseRows(p.accountId)).toEqual([]);
    // The next call takes a new lease.
    await (await a.reserve(p, 100)).settle(50);
    expect(await leaseRows(p.accountId)).toHaveLength(1);
    await a.closeLeases();
    expect(await period(p.accountId)).toMatchObject({ used: 300, reserved: 0 });
  });
});

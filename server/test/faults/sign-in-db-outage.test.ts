import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/chat-setup';
import { usingPostgres } from '../helpers/database';
import { createAccount } from '../helpers/fixtures';
import { TrpcTestClient } from '../helpers/trpc-client';
import { type ProxiedServer, startServerBehindDbProxy } from './proxied-server';

// Sign-ins while Postgres is down, with the attempt counters in Redis: each is a 503, and none counts toward
// the email's backoff, which is for wrong passwords. Before, each was counted before the user was read, so an
// outage left the owner waiting (429) once Postgres was back. Needs a real Postgres to cut off, and Redis
// (without it the counters are in Postgres, and fail with it).
const postgres = usingPostgres();
const REDIS_URL = process.env.TEST_REDIS_URL;
if (!postgres || !REDIS_URL)
  console.warn('sign-in-db-outage.test.ts skipped: set TEST_DATABASE_URL and TEST_REDIS_URL to run it');

let setup: ProxiedServer;
// Frozen: a backoff's wait never runs out by itself during the test, however slow the machine.
const nowMs = Date.now();

beforeAll(async () => {
  if (!postgres || !REDIS_URL) return;
  setup = await startServerBehindDbProxy({ REDIS_URL }, { clock: { now: () => nowMs } });
  await eventually(() => setup.server.services.rateLimiter.mode === 'redis', 10_000);
});
afterAll(async () => {
  await setup?.close();
});

describe.skipIf(!postgres || !REDIS_URL)('sign-in while Postgres is down', () => {
  it('answers 503, and only wrong passwords count toward the email backoff', async () => {
    const account = await createAccount(setup.server);
    const web = new TrpcTestClient(setup.server.url);
    const signIn = (password: string) => web.mutation('auth.signIn', { email: account.email, password });

    // Four of the five free attempts spent on wrong passwords.
    for (let i = 0; i < 4; i++) expect((await signIn(`wrong-${i}`)).status).toBe(401);

    const outage: { status: number; retryAfter: string | null }[] = [];
    setup.proxy.cut();
    try {
      for (const password of ['wrong-a', account.password, 'wrong-b', account.password, 'wrong-c']) {
        const res = await signIn(password);
        outage.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      }
    } finally {
      setup.proxy.restore();
    }
    setup.proxy.stall();
    try {
      const res = await signIn(account.password);
      outage.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
    } finally {
      setup.proxy.restore();
    }
    // Not a 429 among them: the first would have spent the last free attempt, and the rest waited for it.
    expect(outage).toEqual(Array(6).fill({ status: 503, retryAfter: '1' }));

    // Back: the owner signs in at once (the fifth free attempt), which clears the backoff.
    expect((await signIn(account.password)).status).toBe(200);
    // Wrong passwords still count: five free, then a wait.
    for (let i = 0; i < 5; i++) expect((await signIn(`wrong-again-${i}`)).status).toBe(401);
    const held = await signIn(account.password);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database';
import { createAccount } from '../helpers/fixtures';
import { LogCapture } from '../helpers/log-capture';
import { type TrpcResult, TrpcTestClient } from '../helpers/trpc-client';
import { type ProxiedServer, startServerBehindDbProxy } from './proxied-server';

// tRPC while Postgres is down: every procedure, signed in or not, single or batched, is a 503
// SERVICE_UNAVAILABLE with retry-after, as on REST and GraphQL, and the cause is logged once a request. It was
// tRPC's generic 500 with nothing logged: the session is looked up while tRPC builds its context, before any
// procedure (and its error mapping) runs. Needs a real Postgres to cut off.
const postgres = usingPostgres();
if (!postgres) console.warn('trpc-db-outage.test.ts skipped: set TEST_DATABASE_URL to run it');

const logs = new LogCapture();
let setup: ProxiedServer;

beforeAll(async () => {
  if (!postgres) return;
  setup = await startServerBehindDbProxy({ LOG_LEVEL: 'info' }, { logs });
});
afterAll(async () => {
  await setup?.close();
});

const OUTAGE_LOG = 'trpc call refused: a dependency is unavailable';

/** A signed-in dashboard client, and one that is signed out. */
async function clients(): Promise<{ signedIn: TrpcTestClient; signedOut: TrpcTestClient; email: string }> {
  const account = await createAccount(setup.server, { plan: 'pro' });
  const signedIn = new TrpcTestClient(setup.server.url);
  const res = await signedIn.mutation('auth.signIn', { email: account.email, password: account.password });
  expect(res.status).toBe(200);
  return { signedIn, signedOut: new TrpcTestClient(setup.server.url), email: account.email };
}

/** The calls the dashboard makes, one HTTP request each, and two of them batched as httpBatchLink sends them. */
function dashboardCalls(
  signedIn: TrpcTestClient,
  signedOut: TrpcTestClient,
  email: string,
): [string, () => Promise<TrpcResult<unknown>>][] {
  return [
    ['auth.session', () => signedIn.query('auth.session')],
    ['keys.list', () => signedIn.query('keys.list')],
    ['plan.status', () => signedIn.query('plan.status')],
    ['auth.signOut', () => signedIn.mutation('auth.signOut')],
    [
      'signed out auth.signIn',
      () => signedOut.mutation('auth.signIn', { email, password: 'not-the-password' }),
    ],
  ];
}

async function batch(client: TrpcTestClient): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(
    `${setup.server.url}/trpc/auth.session,keys.list?batch=1&input=${encodeURIComponent('{}')}`,
    {
      headers: client.cookie ? { cookie: client.cookie } : {},
    },
  );
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe.skipIf(!postgres)('tRPC while Postgres is down', () => {
  it('answers every procedure 503 SERVICE_UNAVAILABLE with retry-after, and logs the cause once a request', async () => {
    const { signedIn, signedOut, email } = await clients();
    expect((await signedIn.query('keys.list')).status).toBe(200);

    setup.proxy.cut();
    const requestIds: string[] = [];
    try {
      for (const [name, call] of dashboardCalls(signedIn, signedOut, email)) {
        const res = await call();
        requestIds.push(String(res.headers.get('x-request-id')));
        expect({ name, status: res.status, code: res.error?.data.code }).toEqual({
          name,
          status: 503,
          code: 'SERVICE_UNAVAILABLE',
        });
        expect(res.headers.get('retry-after')).toBe('1');
        expect(res.error?.message).toBe('The service is temporarily unavailable. Please retry shortly.');
        expect(JSON.stringify(res.error)).not.toMatch(/stack|ECONN|CONNECTION_/);
      }
      // Signed out, the session needs no database: still answered.
      expect(await signedOut.query('auth.session')).toMatchObject({ status: 200, data: null });
      const batched = await batch(signedIn);
      requestIds.push(String(batched.headers.get('x-request-id')));
      expect(batched.status).toBe(503);
      expect(batched.headers.get('retry-after')).toBe('1');
      const codes = (batched.body as { error: { data: { code: string } } }[]).map((r) => r.error.data.code);
      expect(codes).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
    } finally {
      setup.proxy.restore();
    }

    // One line a request (the batch's two calls share theirs), naming the request and the driver's error.
    const lines = logs.find({ msg: OUTAGE_LOG });
    expect(lines.map((l) => l.requestId).sort()).toEqual([...requestIds].sort());
    for (const line of lines) {
      expect(line.cause).toMatchObject({ code: expect.stringMatching(/^(CONNECTION_|ECONN)/) });
      // The failed query's text and parameters (the session's hash) stay out of it.
      expect(JSON.stringify(line)).not.toMatch(/select|params/i);
    }
    expect(logs.find({ msg: 'trpc error' })).toEqual([]);

    // Postgres is back: so is the dashboard.
    expect((await signedOut.mutation('auth.signIn', { email, password: 'not-the-password' })).status).toBe(
      401,
    );
  }, 60_000);

  it('while Postgres is stalled, answers 503 with retry-after within the database timeout', async () => {
    const { signedIn } = await clients();
    setup.proxy.stall();
    try {
      const started = performance.now();
      const answers = await Promise.all([signedIn.query('auth.session'), signedIn.query('keys.list')]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
      }
      // DATABASE_TIMEOUT_MS, 3,000 by default, and a margin for this shared machine.
      expect(performance.now() - started).toBeLessThan(4_500);
    } finally {
      setup.proxy.restore();
    }
    expect((await signedIn.query('keys.list')).status).toBe(200);
  }, 60_000);
});

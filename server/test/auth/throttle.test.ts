import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/env';
import type { Clock } from '../../src/lib/clock';
import { createLogger } from '../../src/logger';
import { COMMON_PASSWORD_MESSAGE } from '../../src/modules/accounts';
import { type RunningServer, startServer } from '../../src/server';
import { createServices, type Services } from '../../src/services';
import { openTestDatabase } from '../helpers/database';
import { createAccount } from '../helpers/fixtures';
import { startTestServer, type TestServer, testAuthThrottle } from '../helpers/server';
import { type TrpcResult, TrpcTestClient } from '../helpers/trpc-client';

const REDIS_URL = process.env.TEST_REDIS_URL;

interface Cluster {
  instances: (RunningServer & { services: Services })[];
  first: TestServer;
  close(): Promise<void>;
}

/**
 * N instances as N processes would be, on one database, and on one Redis when TEST_REDIS_URL is set (CI runs
 * this file both ways): each its own Services (and so its own throttle) and HTTP server.
 */
async function startCluster(
  n: number,
  clock: Clock,
  authThrottle = testAuthThrottle(),
  extraEnv: Record<string, string> = {},
): Promise<Cluster> {
  const database = await openTestDatabase();
  await database.migrate();
  const shared = { ...database, close: async () => {} };
  const env = parseEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    ...(REDIS_URL && { REDIS_URL }),
    ...extraEnv,
  });
  const instances: Cluster['instances'] = [];
  for (let i = 0; i < n; i++) {
    const services = createServices(env, {
      database: shared,
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      clock,
      config: { authThrottle },
    });
    const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
    instances.push({ ...running, services });
  }
  const deadline = Date.now() + 15_000;
  while (REDIS_URL && !instances.every((i) => i.services.rateLimiter.mode === 'redis')) {
    if (Date.now() > deadline) throw new Error('timed out waiting for Redis');
    await new Promise((r) => setTimeout(r, 50));
  }
  const first = instances[0];
  if (!first) throw new Error('no instance');
  return {
    instances,
    first: { ...first, databaseUrl: database.url },
    async close() {
      await Promise.all(instances.map((i) => i.close()));
      await database.close();
    },
  };
}

function statusCounts(results: TrpcResult<unknown>[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

let cluster: Cluster | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await cluster?.close();
  await server?.close();
  cluster = undefined;
  server = undefined;
});

describe('sign-in throttling shared by 4 instances', () => {
  it('slows one email down with a growing wait, the same on every instance, and never locks its owner out', async () => {
    let nowMs = Date.UTC(2026, 10, 25, 12, 0, 0);
    cluster = await startCluster(4, { now: () => nowMs });
    const account = await createAccount(cluster.first);
    const clients = cluster.instances.map((i) => new TrpcTestClient(i.url));
    const client = (i: number) => clients[i % clients.length] as TrpcTestClient;
    const wrong = (i: number) =>
      client(i).mutation('auth.signIn', { email: account.email, password: `wrong-password-${i}` });

    // 40 guesses at once over 4 instances: 5 are checked, wherever they land; the others wait.
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => wrong(i)));
    expect(statusCounts(burst)).toEqual({ 401: 5, 429: 35 });
    const refused = burst.find((r) => r.status === 429);
    expect(refused?.error?.message).toBe('Too many sign-in attempts. Try again in 1s.');
    expect(refused?.error?.data.code).toBe('TOO_MANY_REQUESTS');
    expect(refused?.headers.get('retry-after')).toBe('1');

    // Each further failure doubles the wait (2 s, 4 s, …), up to a minute, on whichever instance it lands.
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      nowMs += waits.at(-1) ?? 1_000;
      expect((await wrong(i)).status).toBe(401);
      const next = await wrong(i + 1);
      expect(next.status).toBe(429);
      waits.push(Number(next.headers.get('retry-after')) * 1000);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60, 60].map((s) => s * 1000));

    // The owner, after at most a minute, signs in with the right password on any instance…
    nowMs += 60_000;
    const owner = await client(3).mutation('auth.signIn', {
      email: account.email,
      password: account.password,
    });
    expect(owner.status).toBe(200);
    // …which clears the backoff.
    expect((await wrong(1)).status).toBe(401);
    expect((await wrong(2)).status).toBe(401);
  }, 120_000);

  it('counts attempts per client address across instances, however the email changes', async () => {
    const nowMs = Date.UTC(2026, 10, 25, 12, 0, 0);
    cluster = await startCluster(
      3,
      { now: () => nowMs },
      testAuthThrottle({ signInPerAddress: { kind: 'window', limit: 6, windowMs: 15 * 60_000 } }),
    );
    const results: TrpcResult<unknown>[] = [];
    for (let i = 0; i < 9; i++) {
      const web = new TrpcTestClient(cluster.instances[i % 3]?.url ?? '');
      results.push(
        await web.mutation('auth.signIn', { email: `nobody${i}@example.com`, password: 'guess-guess' }),
      );
    }
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
  }, 120_000);
});

describe('the client address behind trusted proxies', () => {
  it('is the right-most X-Forwarded-For entry the trusted proxy wrote, not the left-most the client wrote', async () => {
    server = await startTestServer({
      env: { TRUST_PROXY: '1' },
      config: {
        authThrottle: testAuthThrottle({
          signInPerAddress: { kind: 'window', limit: 3, windowMs: 15 * 60_000 },
        }),
      },
    });
    const web = new TrpcTestClient(server.url);
    const attempt = (i: number, client: string) =>
      web.mutation(
        'auth.signIn',
        { email: `rotating${i}@example.com`, password: 'guess-guess' },
        // The client's forged entries first; the proxy appends the address it saw.
        { 'x-forwarded-for': `198.51.100.${i}, 192.0.2.${i}, ${client}` },
      );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(i, '203.0.113.7')).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    // Another client behind the same proxy is not held back.
    expect((await attempt(9, '203.0.113.8')).status).toBe(401);
  }, 60_000);

  it('accepts hop counts and proxy lists, and refuses what is neither', () => {
    const parse = (v: string) => parseEnv({ TRUST_PROXY: v }).TRUST_PROXY;
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('true')).toBe(1);
    expect(parse('2')).toBe(2);
    expect(parse('loopback, 10.0.0.0/8, fd00::/8, 192.0.2.1')).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    for (const bad of ['everyone', '10.0.0.0/33', '10.0.0/8', 'loopback,,nope']) {
      expect(() => parse(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('sign-up', () => {
  it('is throttled per client address across instances', async () => {
    const nowMs = Date.UTC(2026, 10, 25, 12, 0, 0);
    cluster = await startCluster(
      2,
      { now: () => nowMs },
      testAuthThrottle({ signUpPerAddress: { kind: 'window', limit: 3, windowMs: 60 * 60_000 } }),
    );
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        new TrpcTestClient(cluster?.instances[i % 2]?.url ?? '').mutation('auth.signUp', {
          email: `burst${i}@example.com`,
          password: `a long enough password ${i}`,
        }),
      ),
    );
    expect(statusCounts(results)).toEqual({ 200: 3, 429: 5 });
    const refused = results.find((r) => r.status === 429);
    expect(refused?.error?.message).toMatch(/^Too many sign-ups from this address\. Try again in \d+s\.$/);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(3_000);
  }, 120_000);

  it('refuses a common password, saying why, beside the password field', async () => {
    server = await startTestServer();
    for (const password of ['1234567890', 'password12', 'Password12', 'qwertyuiop']) {
      const res = await new TrpcTestClient(server.url).mutation('auth.signUp', {
        email: `common-${password}@example.com`,
        password,
      });
      expect(res.status, password).toBe(400);
      expect(res.error?.message).toBe(COMMON_PASSWORD_MESSAGE);
      expect(res.error?.data.fieldErrors).toEqual({ password: [COMMON_PASSWORD_MESSAGE] });
    }
    const fine = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      email: 'uncommon@example.com',
      password: 'tessellated lighthouse 42',
    });
    expect(fine.status).toBe(200);
  }, 60_000);

  it('takes as long to say an email is taken as a sign-in takes to refuse a password', async () => {
    server = await startTestServer();
    const taken = await createAccount(server);
    const web = new TrpcTestClient(server.url);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const timed = async (call: () => Promise<TrpcResult<unknown>>, status: number) => {
      const start = performance.now();
      expect((await call()).status).toBe(status);
      return performance.now() - start;
    };
    const signUps: number[] = [];
    const signIns: number[] = [];
    for (let i = 0; i < 5; i++) {
      signUps.push(
        await timed(
          () => web.mutation('auth.signUp', { email: taken.email, password: `another password ${i}` }),
          409,
        ),
      );
      signIns.push(
        await timed(
          () =>
            web.mutation('auth.signIn', {
              email: `someone-${i}@example.com`,
              password: `wrong password ${i}`,
            }),
          401,
        ),
      );
    }
    // Both hash a password with scrypt (~50 ms here); without that the duplicate answered in a millisecond.
    expect(median(signUps)).toBeGreaterThan(median(signIns) * 0.5);
  }, 60_000);
});

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { setPlan } from '../../src/modules/accounts';
import { type Cluster, spread, startCluster, waitFor } from '../helpers/cluster';
import { createAccount, createKey } from '../helpers/fixtures';

const REDIS_URL = process.env.TEST_REDIS_URL;
const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/**
 * This machine's 2 cores are shared with other suites: a generous Redis timeout keeps a starved Redis from
 * sending instances to their (per-instance) fallback, which these tests are not about.
 */
const PATIENT = { REDIS_COMMAND_TIMEOUT_MS: '2000' };

describe.skipIf(!REDIS_URL)('limits shared by 4 instances through Redis', () => {
  it('5x the Free limit at once over 4 instances: exactly 100 admitted (shared clock)', async () => {
    let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
    cluster = await startCluster(4, REDIS_URL ?? '', { now: () => nowMs }, PATIENT);
    const account = await createAccount(cluster.first, { plan: 'free' });
    const key = await createKey(cluster.first, account.id, 'test');
    expect(await spread(cluster, key.key, 500)).toEqual({ 200: 100, 429: 400 });
    nowMs += 6_000;
    expect(await spread(cluster, key.key, 50)).toEqual({ 200: 10, 429: 40 });

    // A plan change reaches every instance within seconds (each one's key cache sync).
    await setPlan({ ctx: cluster.first.services.ctx, accountId: account.id, input: { plan: 'pro' } });
    const instances = cluster.instances;
    await waitFor(
      async () => {
        const limits = await Promise.all(
          instances.map(async (i) => {
            const res = await fetch(`${i.url}/v1/models`, {
              headers: { authorization: `Bearer ${key.key}` },
            });
            return res.headers.get('x-ratelimit-limit-requests');
          }),
        );
        return limits.every((l) => l === '1000');
      },
      'Pro on every instance',
      5_000,
    );
  }, 120_000);

  it("on Redis's clock, driven at 5x for a window: admitted ≤ the limit's bound and ≥ 99% of it", async () => {
    cluster = await startCluster(4, REDIS_URL ?? '', undefined, PATIENT);
    const account = await createAccount(cluster.first, { plan: 'free' });
    const key = await createKey(cluster.first, account.id, 'live');
    const started = performance.now();
    let admitted = 0;
    let lastWaveAt = 0;
    // Five waves of the limit's size, back to back: 5x the limit.
    for (let wave = 0; wave < 5; wave++) {
      lastWaveAt = performance.now() - started;
      admitted += (await spread(cluster, key.key, 100))[200] ?? 0;
    }
    const elapsed = performance.now() - started;
    // GCRA allows the burst of 100 plus one request per 600 ms that passed: never more...
    expect(admitted).toBeLessThanOrEqual(100 + Math.floor(elapsed / 600) + 1);
    // ...and the last wave (100 requests) takes up everything that refilled before it was sent.
    expect(admitted).toBeGreaterThanOrEqual(Math.floor(0.99 * (100 + Math.floor(lastWaveAt / 600))));
    for (const i of cluster.instances) expect(i.services.rateLimiter.metrics.fallbackDecisions).toBe(0);
  }, 120_000);
});

/** Our own redis-server on a free port, so that stopping it disturbs nobody else. */
class OwnRedis {
  private child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const probe = spawnSync('redis-cli', ['-p', String(this.port), 'ping'], { encoding: 'utf8' });
          resolve(probe.stdout?.trim() === 'PONG');
        }),
      'redis-server',
    );
  }

  /** A hung Redis: the connection stays open, nothing answers. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe.skipIf(!REDIS_URL || !HAS_REDIS_SERVER)('Redis outage', () => {
  let redis: OwnRedis | undefined;
  afterAll(async () => {
    await redis?.stop();
  });

  it('no 5xx while Redis is down; limits are shared again once it is back', async () => {
    let nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);
    redis = new OwnRedis(await freePort());
    await redis.start();
    cluster = await startCluster(2, redis.url, { now: () => nowMs });
    const account = await createAccount(cluster.first, { plan: 'pro' });
    const key = await createKey(cluster.first, account.id, 'test');

    // Traffic keeps flowing while Redis hangs, dies and comes back.
    const instances = cluster.instances;
    const limiters = instances.map((i) => i.services.rateLimiter);
    const seen: Record<number, number> = {};
    let running = true;
    const traffic = (async () => {
      while (running) {
        const counts = await spread(cluster as Cluster, key.key, 10);
        for (const [status, n] of Object.entries(counts))
          seen[Number(status)] = (seen[Number(status)] ?? 0) + n;
        nowMs += 600; // Pro refills one request per 60 ms, so ten per round: the account stays within its limit.
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 300));
      // Hung first: commands time out (REDIS_COMMAND_TIMEOUT_MS), requests are decided in process.
      redis.pause();
      await waitFor(() => limiters.every((l) => l.metrics.redisErrors > 0), 'timeouts on every instance');
      redis.resume();
      await waitFor(() => limiters.every((l) => l.mode === 'redis'), 'back on Redis after the hang');
      // Then gone: the connection drops, requests are decided in process without even trying.
      const before = limiters.map((l) => l.metrics.fallbackDecisions);
      await redis.stop();
      await waitFor(
        () => limiters.every((l, i) => l.metrics.fallbackDecisions > (before[i] ?? 0) + 5),
        'fallback on every instance',
      );
      for (const l of limiters) expect(l.mode).toBe('fallback');
      await redis.start();
      await waitFor(() => limiters.every((l) => l.mode === 'redis'), 'back on Redis');
    } finally {
      running = false;
      await traffic;
    }
    // The promise is no 5xx. A 429 would still be a correct answer of the limiter (in fallback each instance
    // counts alone), so it is allowed; any other status is not.
    expect(
      Object.keys(seen)
        .map(Number)
        .filter((status) => status !== 200 && status !== 429),
    ).toEqual([]);
    expect(seen[200] ?? 0).toBeGreaterThan(0);

    // Shared again: a fresh Free account gets exactly 100 over both instances, not 100 each.
    const free = await createAccount(cluster.first, { plan: 'free' });
    const freeKey = await createKey(cluster.first, free.id, 'test');
    expect(await spread(cluster, freeKey.key, 300)).toEqual({ 200: 100, 429: 200 });
  }, 120_000);
});

/**
 * The rate limiter's cost per request: in process, and through Redis (one EVALSHA per request).
 *   cd server && npx tsx ../bench/ratelimit/limiter.ts [redis://127.0.0.1:6379]
 * Without a reachable Redis only the in-process numbers are printed.
 */
import { cpus } from 'node:os';
import { createLogger } from '../../server/src/logger';
import type { Principal } from '../../server/src/modules/keys';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from '../../server/src/modules/ratelimit';

const redisUrl = process.argv[2] ?? 'redis://127.0.0.1:6379';
const logger = createLogger('silent');

function principal(i: number): Principal {
  return {
    keyId: `key_${i}`,
    accountId: `acct_${i}`,
    mode: i % 2 === 0 ? 'live' : 'test',
    last4: 'abcd',
    plan: 'pro',
    limits: { requestsPerMinute: 1_000_000, monthlyTokens: 1 },
  };
}
const principals = Array.from({ length: 10_000 }, (_, i) => principal(i));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function inProcess(): Promise<void> {
  const limiter = new RateLimiter({ memory: new MemoryRateLimitStore({ now: () => Date.now() }), logger });
  const n = 1_000_000;
  for (let i = 0; i < 50_000; i++) await limiter.check(principals[i % principals.length] as Principal);
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await limiter.check(principals[i % principals.length] as Principal);
  const ns = Number(process.hrtime.bigint() - started) / n;
  console.log(
    `in process   ${n} checks over 10,000 keys: ${ns.toFixed(0)} ns/check, ${(1e9 / ns / 1e6).toFixed(2)} M checks/s`,
  );
}

async function redis(): Promise<void> {
  const store = new RedisRateLimitStore({
    url: redisUrl,
    commandTimeoutMs: 1_000,
    keyPrefix: 'tessera:bench:',
  });
  store.connect();
  for (let i = 0; i < 50 && !store.ready; i++) await new Promise((r) => setTimeout(r, 20));
  if (!store.ready) {
    console.log(`redis        ${redisUrl} unreachable: skipped`);
    await store.close();
    return;
  }
  const limiter = new RateLimiter({
    memory: new MemoryRateLimitStore({ now: () => Date.now() }),
    redis: store,
    logger,
  });
  for (let i = 0; i < 2_000; i++) await limiter.check(principals[i % principals.length] as Principal);

  // Sequential: the latency one request pays.
  const samples: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const t = process.hrtime.bigint();
    await limiter.check(principals[i % principals.length] as Principal);
    samples.push(Number(process.hrtime.bigint() - t) / 1_000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  console.log(
    `redis        sequential, 20,000 checks: mean ${mean.toFixed(0)} µs, p50 ${percentile(samples, 50).toFixed(0)} µs, p99 ${percentile(samples, 99).toFixed(0)} µs`,
  );

  // Concurrent: throughput of one instance with 64 requests in flight.
  const total = 100_000;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < total) await limiter.check(principals[next++ % principals.length] as Principal);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`redis        64 in flight, ${total} checks: ${(total / seconds).toFixed(0)} checks/s`);
  console.log(`             fallback decisions during the run: ${limiter.metrics.fallbackDecisions}`);
  const keys = await store.client.keys('tessera:bench:*');
  for (let i = 0; i < keys.length; i += 1_000) await store.client.del(...keys.slice(i, i + 1_000));
  await limiter.stop();
}

console.log(
  `${new Date().toISOString()}  node ${process.version}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}`,
);
await inProcess();
await redis();

/**
 * What writing one batch of usage events costs the process that meters: the store's write (PgUsageStore, as the
 * usage recorder calls it) of `size` chat-call events, `rounds` times, on a fresh database. For each round: the
 * wall time until committed, the process's CPU time (all threads), and the event loop's gaps meanwhile (a 1 ms
 * timer late by more than 1.5 ms: how long the write held every request in that process). The last rounds are
 * the warm ones.
 *   cd server && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx ../bench/analytics/batch-write.ts [size=500] [rounds=150]
 */
import { createAccount } from '../../server/src/modules/accounts';
import { PgUsageStore, type UsageEvent } from '../../server/src/modules/usage';
import { openTestDatabase } from '../../server/test/helpers/database';

const size = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 150);
const database = await openTestDatabase();
await database.migrate();
const account = await createAccount({
  ctx: { db: database.db },
  input: { email: 'batch-write@tessera.local', password: 'rollup writer passphrase 19' },
});
const store = new PgUsageStore(database.db);

let last = performance.now();
const gaps: number[] = [];
const timer = setInterval(() => {
  const now = performance.now();
  if (now - last > 1.5) gaps.push(now - last);
  last = now;
}, 1);

const rows: { wall: number; cpu: number; worstGap: number; gaps: number }[] = [];
for (let round = 0; round < rounds; round++) {
  const events: UsageEvent[] = Array.from({ length: size }, (_, i) => ({
    occurredAt: Date.now() - Math.random(),
    requestId: `req_${round}_${i}_${'x'.repeat(16)}`,
    accountId: account.id,
    keyId: 'key_batchwrite0000000000',
    mode: 'live',
    method: 'POST',
    route: '/v1/chat/completions',
    status: 200,
    latencyMs: 1.234,
    model: 'tessera-fast-4k',
    deployment: 'simulator',
    promptTokens: 12,
    completionTokens: 16,
    costMicros: null,
    errorType: null,
    errorCode: null,
    errorMessage: null,
  }));
  await new Promise((r) => setTimeout(r, 20));
  gaps.length = 0;
  last = performance.now();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await store.write(events);
  const cpu = process.cpuUsage(cpuBefore);
  rows.push({
    wall: performance.now() - started,
    cpu: (cpu.user + cpu.system) / 1000,
    worstGap: Math.max(0, ...gaps),
    gaps: gaps.length,
  });
}
clearInterval(timer);
await database.close();

const warm = rows.slice(Math.floor(rows.length / 2));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const max = (xs: number[]) => Math.max(...xs);
const f = (n: number) => n.toFixed(1);
console.log(`${size} events a batch, ${rounds} batches; the last ${warm.length} (warm):`);
console.log(
  `  wall until committed: median ${f(median(warm.map((r) => r.wall)))} ms, max ${f(max(warm.map((r) => r.wall)))}`,
);
console.log(
  `  process CPU: median ${f(median(warm.map((r) => r.cpu)))} ms, max ${f(max(warm.map((r) => r.cpu)))} (${f((median(warm.map((r) => r.cpu)) * 1000) / size)} µs an event)`,
);
console.log(
  `  event-loop gaps over 1.5 ms a batch: median ${median(warm.map((r) => r.gaps))}; worst gap: median ${f(median(warm.map((r) => r.worstGap)))} ms, max ${f(max(warm.map((r) => r.worstGap)))}`,
);

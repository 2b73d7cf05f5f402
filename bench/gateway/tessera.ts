/**
 * Child process: Tessera as in production (auth, rate limits, usage metering, the live allowance), pointed at the
 * fake upstream, on a fresh Postgres database when TEST_DATABASE_URL is set, else on in-memory PGlite.
 * Prints its URL and a live key.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage, releaseWorkersYoungGeneration } from '../../server/src/lib/heap';
import { startServer } from '../../server/src/server';
import { allocationWindow } from './alloc-window';
import { benchKey, benchServices, budgetedKey } from './setup';

const upstreamUrl = process.argv[2];
const withoutAllowance = process.argv.includes('--no-allowance');
const logLevel = process.argv.find((a) => a.startsWith('--log-level='))?.split('=')[1] ?? 'info';
if (!upstreamUrl) throw new Error('usage: tessera.ts <upstream url>');
// A fresh Postgres database when TEST_DATABASE_URL is set (dropped at exit), else embedded PGlite.
// GATEWAY_BENCH_STALLS=<file> (below) also records when each usage batch was written: a write's synchronous
// work (the batch's JSON, the driver's buffers) holds the event loop.
const stallsFile = process.env.GATEWAY_BENCH_STALLS;
// As main.ts does before any worker thread is made.
releaseWorkersYoungGeneration();
const usageWrites: { at: number; ms: number; events: number }[] = [];
const { services, accountId } = await benchServices(
  upstreamUrl,
  {
    // The production default: one access-log line per request, as a deployment writes it.
    LOG_LEVEL: logLevel,
    // --env=NAME=value (repeatable): any other setting, e.g. --env=USAGE_BATCH_SIZE=100.
    ...Object.fromEntries(
      process.argv
        .filter((a) => a.startsWith('--env='))
        .map((a) => {
          const [name, ...value] = a.slice('--env='.length).split('=');
          return [name, value.join('=')];
        }),
    ),
  },
  {
    usageStore: stallsFile
      ? (store) => ({
          async write(events, maybeWritten) {
            const at = performance.now();
            try {
              await store.write(events, maybeWritten);
            } finally {
              usageWrites.push({ at, ms: performance.now() - at, events: events.length });
            }
          },
          resolveKeys: (hashes) => store.resolveKeys(hashes),
          prune: (before) => store.prune(before),
        })
      : undefined,
  },
);
const key = await benchKey(services, accountId, 'live');
// --features: a second account whose key is held to money budgets (run.ts --features, routing.ts).
const budgeted = process.argv.includes('--features') ? await budgetedKey(services) : undefined;
if (withoutAllowance) {
  // Isolates the gateway's own cost from the allowance's database round trips (reported separately).
  const real = services.allowance;
  services.allowance = {
    reserve: async (_principal, tokens) => ({ tokens, settle: async () => {} }),
    status: (principal) => real.status(principal),
  };
}
// --diagnose: at exit, GC pauses and event-loop delays on stderr (what stalls every call in flight at once), and
// each stall of the loop of 20 ms or more: when (ms since start-up), how long, and the GC pauses within it.
const gcPauses: { start: number; duration: number; kind: string }[] = [];
const stalls: { at: number; gap: number }[] = [];
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
// GATEWAY_BENCH_STALLS=<file>: every GC pause and every gap of 4 ms or more in a 1 ms timer (the event loop held
// up), with the clock's origin, written at exit for clusters.ts to set against the slow calls of a dump.
const gaps: { at: number; gap: number; cpu: number }[] = [];
if (stallsFile) {
  let prev = performance.now();
  let prevCpu = process.cpuUsage();
  setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    // cpu: the process's CPU time (ms, all threads) within the gap: near the gap's length when it was busy,
    // near 0 when it waited (for a core, or in a system call).
    if (now - prev >= 4)
      gaps.push({
        at: prev,
        gap: now - prev,
        cpu: (cpu.user + cpu.system - prevCpu.user - prevCpu.system) / 1000,
      });
    prev = now;
    prevCpu = cpu;
  }, 1).unref();
}
if (process.argv.includes('--diagnose') || stallsFile) {
  const kinds: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak' };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcPauses.push({ start: entry.startTime, duration: entry.duration, kind: kinds[kind] ?? String(kind) });
    }
  }).observe({ entryTypes: ['gc'] });
  loopDelay.enable();
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last >= 25) stalls.push({ at: last, gap: now - last - 5 });
    last = now;
  }, 5).unref();
}
function diagnosis(): string {
  const durations = gcPauses.map((p) => p.duration);
  const long = durations.filter((d) => d >= 2);
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  const stallLines = stalls.map(({ at, gap }) => {
    const within = gcPauses
      .filter((p) => p.start + p.duration >= at && p.start <= at + gap + 5)
      .map((p) => `${p.kind} ${p.duration.toFixed(1)}`);
    return `\n  stall at ${(at / 1000).toFixed(1)} s: ${gap.toFixed(0)} ms; GC within: ${within.join(', ') || 'none'}`;
  });
  return `gc: ${durations.length} pauses, ${durations.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, ${long.length} of 2 ms or more (max ${Math.max(0, ...durations).toFixed(1)} ms); event-loop delay p50 ${ms(loopDelay.percentile(50))} / p99 ${ms(loopDelay.percentile(99))} / max ${ms(loopDelay.max)} ms; ${stalls.length} stalls of 20 ms or more${stallLines.join('')}`;
}
// As main.ts does before the port opens.
collectStartupGarbage();
const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
// --alloc-prof=<file>: where the process allocates (sampled, objects already collected included), written at exit.
const allocProfile = process.argv.find((a) => a.startsWith('--alloc-prof='))?.split('=')[1];
// Started once the server is up, so that start-up's objects (collected by the full GC above or kept) are not in it.
// --alloc-window (alloc.ts): between two SIGUSR2 instead (alloc-window.ts).
const inspector = allocProfile && !process.argv.includes('--alloc-window') ? new Session() : undefined;
if (allocProfile && !inspector) allocationWindow(allocProfile);
if (inspector) {
  inspector.connect();
  inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    // --alloc-survivors: leaves out what the young generation's scavenges collect, so the profile shows what
    // survives them (copied, then promoted: the work that makes a scavenge long).
    includeObjectsCollectedByMinorGC: !process.argv.includes('--alloc-survivors'),
  });
}
/** --diagnose: where the memory is (MB): the process's RSS, the main thread's heap by space, off-heap buffers. */
function memory(): string {
  const mb = (n: number) => (n / 2 ** 20).toFixed(0);
  const usage = process.memoryUsage();
  const spaces = getHeapSpaceStatistics()
    .filter((s) => s.space_size > 2 ** 20)
    .map((s) => `${s.space_name} ${mb(s.space_size)}`);
  return `rss ${mb(usage.rss)}, main heap ${mb(usage.heapTotal)} (${spaces.join(', ')}), external ${mb(usage.external)}, array buffers ${mb(usage.arrayBuffers)}`;
}
if (process.argv.includes('--diagnose')) process.stderr.write(`tessera at start-up: ${memory()}\n`);
// --heap-snapshots=<dir>: a heap snapshot into <dir> on each SIGUSR2 (after a full GC, so what it holds is what
// is retained); two of them taken rounds apart show what accumulates (Chrome DevTools' comparison view).
const snapshotDir = process.argv.find((a) => a.startsWith('--heap-snapshots='))?.split('=')[1];
if (snapshotDir) {
  let taken = 0;
  process.on('SIGUSR2', () => {
    taken += 1;
    const file = writeHeapSnapshot(`${snapshotDir}/tessera-${taken}.heapsnapshot`);
    process.stderr.write(`tessera heap snapshot ${file}: ${memory()}\n`);
  });
}
process.stdout.write(`${JSON.stringify({ url: running.url, key, budgetedKey: budgeted })}\n`);
process.on('SIGTERM', () => {
  if (process.argv.includes('--diagnose'))
    process.stderr.write(`tessera ${diagnosis()}\ntessera at exit: ${memory()}\n`);
  if (stallsFile)
    writeFileSync(
      stallsFile,
      JSON.stringify({ origin: performance.timeOrigin, gcPauses, gaps, usageWrites }),
    );
  if (inspector && allocProfile) {
    // With --alloc-survivors: a last scavenge first, or everything allocated since the previous one (up to a
    // whole young generation, tens of MB) would count as surviving.
    if (process.argv.includes('--alloc-survivors'))
      (runInNewContext('gc') as (options: { type: 'minor' }) => void)({ type: 'minor' });
    inspector.post('HeapProfiler.stopSampling', (err, result) => {
      if (!err) writeFileSync(allocProfile, JSON.stringify(result.profile));
    });
  }
  running.close(2_000).finally(() => process.exit(0));
});

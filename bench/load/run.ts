/**
 * Sustained mixed load (issue 9) against real Tessera processes on a fresh Postgres database and Redis:
 * for 1 instance, then 2 (same database and Redis, round-robin), a warm-up, a sustained phase at a fixed offered
 * rate (open loop; `--seconds 0` skips it), then a saturation phase (closed loop, a fixed number of requests in
 * flight) for the throughput ceiling.
 *
 *   cd server && npx tsx ../bench/load/run.ts [--seconds 180] [--rps 100] [--instances 1,2]
 *        [--concurrency 32] [--saturate-seconds 30] [--docs 300] [--warmup-seconds 10]
 *        [--cpu-per-instance 0.25]
 *
 * --cpu-per-instance gives each server a CFS quota of that many cores (as a container's CPU limit does), so that
 * the instances, not the Postgres, Redis and generator they share this machine with, are what limits
 * throughput; it needs a writable cgroup v1 cpu controller (root).
 *
 * Uses postgres://postgres@127.0.0.1:5432/postgres (LOAD_DATABASE_URL) to create and drop its own database and
 * redis://127.0.0.1:6379 (LOAD_REDIS_URL). Stops by itself; servers, cgroups and the database are removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type CpuBudget,
  createCpuBudgets,
  processesIn,
  readThrottling,
  removeCpuBudgets,
  throttlingSince,
} from './cgroup';
import { cpuSince, cpuSnapshot } from './cpu-usage';
import { runClosed, runPhase } from './generator';
import { endpointTable, memoryTable, readSamples, type ScalingRow, scalingTable } from './report';
import { type Instance, startInstance, stopInstance, waitReady } from './servers';
import { createLoadDatabase } from './setup';
import { closeAgent, indexDocuments } from './workload';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    rps: { type: 'string', default: '100' },
    instances: { type: 'string', default: '1,2' },
    concurrency: { type: 'string', default: '32' },
    'saturate-seconds': { type: 'string', default: '30' },
    docs: { type: 'string', default: '300' },
    'cpu-per-instance': { type: 'string' },
    'warmup-seconds': { type: 'string', default: '10' },
  },
});
const seconds = Number(values.seconds);
const rps = Number(values.rps);
const concurrency = Number(values.concurrency);
const saturateSeconds = Number(values['saturate-seconds']);
const counts = String(values.instances).split(',').map(Number);
const cores = values['cpu-per-instance'] === undefined ? undefined : Number(values['cpu-per-instance']);
const WARMUP_S = Number(values['warmup-seconds']);
const adminUrl = process.env.LOAD_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.LOAD_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Before anything else, so that a machine without writable cgroups fails at once with the reason.
const budgets: CpuBudget[] = cores === undefined ? [] : createCpuBudgets(Math.max(...counts), cores);

// Hard stop: every phase plus generous start-up and drain time, whatever happens.
const budgetMs = counts.length * (WARMUP_S + seconds + saturateSeconds + 180) * 1000;
const watchdog = setTimeout(() => {
  process.stderr.write('load bench over its time budget: stopping\n');
  void cleanup().finally(() => process.exit(2));
}, budgetMs);
watchdog.unref();

const dir = mkdtempSync(join(tmpdir(), 'tessera-load-'));
let instances: Instance[] = [];
let database: Awaited<ReturnType<typeof createLoadDatabase>> | undefined;
let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await Promise.all(instances.map(stopInstance));
  removeCpuBudgets(budgets);
  closeAgent();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));

const out = (text: string) => process.stdout.write(`${text}\n`);
const plural = (n: number) => `${n} instance${n > 1 ? 's' : ''}`;
out(`# Sustained mixed load: ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
out(
  `offered ${rps} req/s for ${seconds} s (after ${WARMUP_S} s warm-up${cores === undefined ? '' : ', closed loop'}), then ${concurrency} in flight (closed loop) for ${saturateSeconds} s`,
);
if (cores !== undefined) out(`each instance limited to ${cores} core (CFS quota, cgroup v1)`);

const scaling: ScalingRow[] = [];
try {
  database = await createLoadDatabase(adminUrl);
  const { key } = database;
  let indexed = false;
  for (const n of counts) {
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, SIMULATOR_TOKEN_DELAY_MS: '1' };
    instances = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        startInstance(env, join(dir, `samples-${n}-${i}.jsonl`), budgets[i]),
      ),
    );
    const urls = instances.map((i) => i.url);
    const processes = () =>
      instances.map((instance, i) => {
        const budget = budgets[i];
        return budget ? processesIn(budget) : [instance.child.pid ?? 0];
      });
    await Promise.all(urls.map(waitReady));
    if (!indexed) {
      await indexDocuments(urls[0] as string, key, Number(values.docs));
      indexed = true;
    }
    const t0 = Date.now();
    // Under a CPU limit an instance may not even keep up with the offered rate: warm it up at its own pace then.
    if (cores === undefined) await runPhase({ urls, key, rps, seconds: WARMUP_S, maxInFlight: 256 });
    else await runClosed({ urls, key, seconds: WARMUP_S, concurrency });
    const sustainedFrom = Date.now();
    const load: number[] = [];
    const loadTimer = setInterval(() => load.push(loadavg()[0] ?? 0), 5_000);
    const cpuAtSustained = process.cpuUsage();
    const sustained = seconds > 0 ? await runPhase({ urls, key, rps, seconds, maxInFlight: 256 }) : undefined;
    const saturatedFrom = Date.now();
    const sustainedCpu = process.cpuUsage(cpuAtSustained);
    const cpuAtSaturation = cpuSnapshot(processes());
    const throttledAt = budgets.slice(0, n).map((budget) => ({ budget, before: readThrottling(budget) }));
    const saturated = await runClosed({ urls, key, seconds: saturateSeconds, concurrency });
    const saturationCpu = cpuSince(cpuAtSaturation, processes());
    const throttling = throttledAt.map(({ budget, before }) => throttlingSince(budget, before));
    clearInterval(loadTimer);
    scaling.push({ n, cores, ...saturated, cpu: saturationCpu, throttling });
    const end = Date.now();
    const phaseOf = (at: number) =>
      at <= sustainedFrom
        ? 'warm-up'
        : at <= saturatedFrom + 2_000
          ? 'sustained'
          : at <= end
            ? 'saturation'
            : 'after';

    out(`\n## ${plural(n)}\n`);
    const avg = load.reduce((a, b) => a + b, 0) / Math.max(1, load.length);
    out(
      `1-minute load average during the sustained and saturation phases: mean ${avg.toFixed(2)}, max ${Math.max(...load).toFixed(2)}\n`,
    );
    // The generator shares the cores with the servers, Postgres and Redis: its own share, for the caveat.
    const pct = (share: number) => `${(share * 100).toFixed(0)}%`;
    const sustainedShare = sustained
      ? pct((sustainedCpu.user + sustainedCpu.system) / 1e6 / sustained.elapsedS)
      : '–';
    out(
      `Load generator CPU (share of one core): sustained ${sustainedShare}, saturation ${pct(saturationCpu.generator)}\n`,
    );
    if (sustained) {
      out(`### Sustained: ${rps} req/s offered for ${seconds} s\n`);
      out(endpointTable(sustained.outcomes, sustained.elapsedS, sustained.notSent));
    }
    out(`\n### Saturation: closed loop, ${concurrency} requests in flight for ${saturateSeconds} s\n`);
    out(endpointTable(saturated.outcomes, saturated.elapsedS, saturated.notSent));
    await Promise.all(instances.map(stopInstance));
    for (const [i, instance] of instances.entries()) {
      out(`\n### Instance ${i + 1} of ${n}: memory and event-loop delay every 10 s (t from warm-up start)\n`);
      out(memoryTable(readSamples(instance.sampleFile), t0, phaseOf));
    }
    instances = [];
  }
  out(`\n## Throughput ceiling (closed loop, ${concurrency} in flight, ${saturateSeconds} s)\n`);
  out(scalingTable(scaling));
} finally {
  await cleanup();
}

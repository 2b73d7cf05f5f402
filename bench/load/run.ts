/**
 * Sustained mixed load (issue 9) against real Tessera processes on a fresh Postgres database and Redis:
 * for 1 instance, then 2 (same database and Redis, round-robin), a warm-up, a sustained phase at a fixed offered
 * rate (open loop), then a short saturation phase (closed loop, a fixed number of requests in flight) for the throughput ceiling.
 *
 *   cd server && npx tsx ../bench/load/run.ts [--seconds 180] [--rps 100] [--instances 1,2]
 *        [--concurrency 32] [--saturate-seconds 30] [--docs 300]
 *
 * Uses postgres://postgres@127.0.0.1:5432/postgres (LOAD_DATABASE_URL) to create and drop its own database and
 * redis://127.0.0.1:6379 (LOAD_REDIS_URL). Stops by itself; servers and the database are removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runClosed, runPhase } from './generator';
import { endpointTable, memoryTable, readSamples } from './report';
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
  },
});
const seconds = Number(values.seconds);
const rps = Number(values.rps);
const concurrency = Number(values.concurrency);
const saturateSeconds = Number(values['saturate-seconds']);
const counts = String(values.instances).split(',').map(Number);
const WARMUP_S = 10;
const adminUrl = process.env.LOAD_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.LOAD_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Hard stop: every phase plus generous start-up and drain time, whatever happens.
const budgetMs = counts.length * (WARMUP_S + seconds + saturateSeconds + 180) * 1000;
const watchdog = setTimeout(() => {
  process.stderr.write('load bench over its time budget: stopping\n');
  void cleanup().finally(() => process.exit(2));
}, budgetMs);
watchdog.unref();

const dir = mkdtempSync(join(tmpdir(), 'tessera-load-'));
let instances: Instance[] = [];
const database = await createLoadDatabase(adminUrl);
let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await Promise.all(instances.map(stopInstance));
  closeAgent();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));

const out = (text: string) => process.stdout.write(`${text}\n`);
out(`# Sustained mixed load: ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
out(
  `offered ${rps} req/s for ${seconds} s (after ${WARMUP_S} s warm-up), then ${concurrency} in flight (closed loop) for ${saturateSeconds} s`,
);

const ceilings: string[] = [];
try {
  let indexed = false;
  for (const n of counts) {
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      SIMULATOR_TOKEN_DELAY_MS: '1',
    };
    instances = await Promise.all(
      Array.from({ length: n }, (_, i) => startInstance(env, join(dir, `samples-${n}-${i}.jsonl`))),
    );
    const urls = instances.map((i) => i.url);
    await Promise.all(urls.map(waitReady));
    if (!indexed) {
      await indexDocuments(urls[0] as string, database.key, Number(values.docs));
      indexed = true;
    }
    const t0 = Date.now();
    await runPhase({ urls, key: database.key, rps, seconds: WARMUP_S, maxInFlight: 256 });
    const sustainedFrom = Date.now();
    const load: number[] = [];
    const loadTimer = setInterval(() => load.push(loadavg()[0] ?? 0), 10_000);
    const cpuAtSustained = process.cpuUsage();
    const sustained = await runPhase({ urls, key: database.key, rps, seconds, maxInFlight: 256 });
    const saturatedFrom = Date.now();
    const sustainedCpu = process.cpuUsage(cpuAtSustained);
    const cpuAtSaturation = process.cpuUsage();
    const saturated = await runClosed({ urls, key: database.key, seconds: saturateSeconds, concurrency });
    const saturationCpu = process.cpuUsage(cpuAtSaturation);
    clearInterval(loadTimer);
    const ok = saturated.outcomes.filter((o) => o.status === 200).length;
    ceilings.push(`${n} instance${n > 1 ? 's' : ''}: ${(ok / saturated.elapsedS).toFixed(0)} req/s`);
    const end = Date.now();
    const phaseOf = (at: number) =>
      at <= sustainedFrom
        ? 'warm-up'
        : at <= saturatedFrom + 2_000
          ? 'sustained'
          : at <= end
            ? 'saturation'
            : 'after';

    out(`\n## ${n} instance${n > 1 ? 's' : ''}\n`);
    const avg = load.reduce((a, b) => a + b, 0) / Math.max(1, load.length);
    out(
      `1-minute load average during the sustained phase: mean ${avg.toFixed(2)}, max ${Math.max(...load).toFixed(2)}\n`,
    );
    // The generator shares the 2 cores with the servers, Postgres and Redis: its own share, for the caveat.
    const share = (c: NodeJS.CpuUsage, s: number) => `${(((c.user + c.system) / 1e6 / s) * 100).toFixed(0)}%`;
    out(
      `Load generator CPU (share of one core): sustained ${share(sustainedCpu, sustained.elapsedS)}, saturation ${share(saturationCpu, saturated.elapsedS)}\n`,
    );
    out(`### Sustained: ${rps} req/s offered for ${seconds} s\n`);
    out(endpointTable(sustained.outcomes, sustained.elapsedS, sustained.notSent));
    out(`\n### Saturation: closed loop, ${concurrency} requests in flight for ${saturateSeconds} s\n`);
    out(endpointTable(saturated.outcomes, saturated.elapsedS, saturated.notSent));
    await Promise.all(instances.map(stopInstance));
    for (const [i, instance] of instances.entries()) {
      out(`\n### Instance ${i + 1} of ${n}: memory and event-loop delay every 10 s (t from warm-up start)\n`);
      out(memoryTable(readSamples(instance.sampleFile), t0, phaseOf));
    }
    instances = [];
  }
  out(`\n## Throughput ceiling (closed loop, ${concurrency} in flight): ${ceilings.join(', ')}`);
} finally {
  await cleanup();
}

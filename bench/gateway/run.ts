/**
 * Added latency of Tessera over calling the same fake upstream directly, in the same run: p50/p99 of whole
 * non-streamed responses and of time to first token for streams, at fixed offered loads.
 *   cd server && npx tsx ../bench/gateway/run.ts [rps…] [--seconds=5] [--warmup=3] [--slice=1] [--modes=plain,stream] [--no-allowance] [--with-floor] [--pin]
 * (TEST_DATABASE_URL=postgres://… puts Tessera on a fresh Postgres database; --no-allowance replaces the live
 * allowance's reserve/settle, two database writes per call, by a no-op to show the gateway's own cost.)
 * Diagnostics: --pin (see below), --diagnose (Tessera's GC pauses and event-loop delays at exit; after each row, how long each
 * process's main thread waited for a core a call in each path's slices), --cpu-prof=<dir> (a V8 CPU
 * profile), --alloc-prof=<file> (a sampled allocation profile), --node-arg=<flag> (a Node.js/V8 option for
 * Tessera), --alloc-survivors (with --alloc-prof: only what survives the young generation's scavenges),
 * --env=NAME=value (any other Tessera setting), GATEWAY_BENCH_DUMP=<file> (every call's latency in order, one
 * JSON line per phase), GATEWAY_BENCH_LOG=<file> (Tessera's warnings, errors and non-2xx request lines, and
 * Node.js's own non-JSON output, e.g. of --node-arg=--trace-gc-nvp) and GATEWAY_BENCH_STALLS=<file> (Tessera's GC
 * pauses and event-loop gaps, for clusters.ts to set against a dump's slow calls).
 * Tessera runs in its own process as in production (auth, rate limits, usage metering, live-key allowance);
 * the fake upstream in another; this process only generates load.
 */
import type { ChildProcess } from 'node:child_process';
import { coreWait, pin, processCpu, residentMb, SERVER_NODE_ARGS, start } from './children';
import { failures, type PhaseResult, percentile, runPhase, type Target } from './load';

const args = process.argv.slice(2);
const seconds = Number(args.find((a) => a.startsWith('--seconds='))?.split('=')[1] ?? 5);
const noAllowance = args.includes('--no-allowance');
/** --cpu-prof=<dir>: writes a V8 CPU profile of the Tessera process into <dir> when it exits. */
/** --floor: measures the minimal relay of floor.ts in Tessera's place (what Node.js itself costs here). */
const floor = args.includes('--floor');
/**
 * --with-floor: measures the floor relay as a third path in the same slices (direct, floor, Tessera, …), so that
 * Tessera's added latency can be set against what the minimal relay adds under the very same noise.
 */
const withFloor = !floor && args.includes('--with-floor');
/** --log-level=<level>: Tessera's log level (default info, the production default: one line per request). */
const logLevel = args.find((a) => a.startsWith('--log-level='))?.split('=')[1];
const profileDir = args.find((a) => a.startsWith('--cpu-prof='))?.split('=')[1];
/** --warmup=<s>: seconds of load on each path before measuring (the JIT keeps optimising for a few seconds). */
const warmup = Number(args.find((a) => a.startsWith('--warmup='))?.split('=')[1] ?? 3);
/**
 * --slice=<s>: the length of each alternating slice of the measurement (default 1 s; --slice=<seconds> measures
 * each path in one go, as before).
 */
const diagnose = args.includes('--diagnose');
const slice = Number(args.find((a) => a.startsWith('--slice='))?.split('=')[1] ?? 1);
/** --modes=plain|stream|plain,stream: which calls to measure (default both). */
const modes = (args.find((a) => a.startsWith('--modes='))?.split('=')[1] ?? 'plain,stream')
  .split(',')
  .map((m) => m === 'stream');
const loads = args.filter((a) => !a.startsWith('--')).map(Number);
if (loads.length === 0) loads.push(500);

const upstream = await start('./upstream.ts');
// A child that fails to start must not leave the others running (they would keep this process alive).
process.on('unhandledRejection', (err) => {
  console.error(err);
  upstream.child.kill('SIGTERM');
  process.exit(1);
});
const tessera = await start(
  floor ? './floor.ts' : './tessera.ts',
  [
    upstream.info.url ?? '',
    ...(noAllowance ? ['--no-allowance'] : []),
    ...(logLevel ? [`--log-level=${logLevel}`] : []),
    ...(diagnose ? ['--diagnose'] : []),
    ...args.filter(
      (a) => a.startsWith('--alloc-prof=') || a.startsWith('--env=') || a === '--alloc-survivors',
    ),
  ],
  [
    // As `pnpm start` runs the server (server/package.json): a young generation of up to 64 MB a semi-space.
    ...(floor ? [] : SERVER_NODE_ARGS),
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    // --node-arg=<flag>: a Node.js/V8 option for Tessera's process (repeatable), e.g. --node-arg=--max-semi-space-size=32
    ...args.filter((a) => a.startsWith('--node-arg=')).map((a) => a.slice('--node-arg='.length)),
  ],
);
const relay = withFloor ? await start('./floor.ts', [upstream.info.url ?? '']) : undefined;
const direct: Target = {
  url: `${upstream.info.url}/v1/chat/completions`,
  headers: {},
  model: 'ok',
};
const gateway: Target = {
  url: `${tessera.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${tessera.info.key}` },
  model: 'bench-model',
};
const floorTarget: Target | undefined = relay && {
  url: `${relay.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${relay.info.key}` },
  model: 'bench-model',
};

/**
 * --pin: the relays' event-loop threads (Tessera's, the floor's) get CPU 1 to themselves; everything else (this
 * load generator, the fake upstream, the relays' helper threads) shares CPU 0. Postgres is left where the
 * kernel puts it.
 */
const pinned = args.includes('--pin');
function pinAll(): void {
  if (!pinned) return;
  pin(process.pid, 0, 0);
  pin(upstream.child.pid, 0, 0);
  pin(tessera.child.pid, 1, 0);
  pin(relay?.child.pid, 1, 0);
}

const fmt = (n: number) => n.toFixed(2);
function add(into: PhaseResult, part: PhaseResult): void {
  for (const latency of part.latencies) into.latencies.push(latency);
  into.errors += part.errors;
}

/** CPU time (user + system, ms) a child has used. */
function cpuMs(child: ChildProcess): number {
  const { user, system } = processCpu(child.pid);
  return user + system;
}
/**
 * Resident memory (MB) of Tessera's process, every thread included, sampled every 100 ms while its slices run:
 * the median and the peak of the row. The floor relay's, sampled alike, is what a bare Node.js relay holds.
 */
function sampleResident(pid: number | undefined, into: number[]): () => void {
  const timer = setInterval(() => into.push(residentMb(pid)), 100);
  into.push(residentMb(pid));
  return () => {
    clearInterval(timer);
    into.push(residentMb(pid));
  };
}
const mb = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${Math.round(percentile(sorted, 50))} / ${Math.round(sorted.at(-1) ?? 0)}`;
};
console.log(
  `| load (rps) | mode | direct p50 / p99 (ms) | Tessera p50 / p99 (ms) | added p50 / p99 (ms) | Tessera CPU per request (ms) | Tessera RSS median / peak (MB) | errors |${floorTarget ? ' floor added p50 / p99 (ms) | floor RSS median / peak (MB) | floor errors |' : ''}`,
);
console.log(`|---|---|---|---|---|---|---|---|${floorTarget ? '---|---|---|' : ''}`);
try {
  for (const rps of loads) {
    for (const stream of modes) {
      pinAll();
      // Warm both paths (connections, JIT, key cache) before measuring.
      await runPhase(direct, stream, rps, warmup);
      await runPhase(gateway, stream, rps, warmup);
      if (floorTarget) await runPhase(floorTarget, stream, rps, warmup);
      pinAll();
      // Measured in alternating slices (direct, Tessera, direct, …) so that the machine's noise, which comes
      // in bursts of a second or more here, falls on both paths alike.
      const d: PhaseResult = { latencies: [], errors: 0 };
      const t: PhaseResult = { latencies: [], errors: 0 };
      const f: PhaseResult = { latencies: [], errors: 0 };
      let cpu = 0;
      const rss: number[] = [];
      const floorRss: number[] = [];
      // --diagnose: how long the main threads waited for a core (runnable, not running) in each path's slices.
      const waits = { direct: [0, 0, 0], floor: [0, 0, 0], tessera: [0, 0, 0] };
      const waited = async (
        into: number[],
        relayPid: number | undefined,
        run: () => Promise<PhaseResult>,
      ) => {
        if (!diagnose) return run();
        const pids = [process.pid, upstream.child.pid, relayPid];
        const before = pids.map((p) => (p ? coreWait(p) : 0));
        const result = await run();
        pids.forEach((p, i) => {
          if (p) into[i] = (into[i] ?? 0) + coreWait(p) - (before[i] ?? 0);
        });
        return result;
      };
      const slices = Math.max(1, Math.round(seconds / slice));
      for (let i = 0; i < slices; i++) {
        add(d, await waited(waits.direct, undefined, () => runPhase(direct, stream, rps, seconds / slices)));
        if (floorTarget) {
          const stopFloor = sampleResident(relay?.child.pid, floorRss);
          add(
            f,
            await waited(waits.floor, relay?.child.pid, () =>
              runPhase(floorTarget, stream, rps, seconds / slices),
            ),
          );
          stopFloor();
        }
        const cpuBefore = cpuMs(tessera.child);
        const stopSampling = sampleResident(tessera.child.pid, rss);
        add(
          t,
          await waited(waits.tessera, tessera.child.pid, () =>
            runPhase(gateway, stream, rps, seconds / slices),
          ),
        );
        stopSampling();
        cpu += cpuMs(tessera.child) - cpuBefore;
      }
      d.latencies.sort((a, b) => a - b);
      t.latencies.sort((a, b) => a - b);
      f.latencies.sort((a, b) => a - b);
      const cpuPerRequest = cpu / Math.round(rps * seconds);
      const [d50, d99, t50, t99] = [
        percentile(d.latencies, 50),
        percentile(d.latencies, 99),
        percentile(t.latencies, 50),
        percentile(t.latencies, 99),
      ];
      console.log(
        `| ${rps} | ${stream ? 'stream, TTFT' : 'non-streamed'} | ${fmt(d50)} / ${fmt(d99)} | ${fmt(t50)} / ${fmt(t99)} | ${fmt(t50 - d50)} / ${fmt(t99 - d99)} | ${fmt(cpuPerRequest)} | ${mb(rss)} | ${d.errors} direct, ${t.errors} Tessera of ${Math.round(rps * seconds)} |${
          floorTarget
            ? ` ${fmt(percentile(f.latencies, 50) - d50)} / ${fmt(percentile(f.latencies, 99) - d99)} | ${mb(floorRss)} | ${f.errors} |`
            : ''
        }`,
      );
      if (diagnose) {
        const us = (ms: number) => ((ms * 1000) / Math.round(rps * seconds)).toFixed(0);
        const line = (w: number[]) => `load generator ${us(w[0] ?? 0)}, upstream ${us(w[1] ?? 0)}`;
        console.log(
          `  waits for a core a call (µs, main threads): direct slices: ${line(waits.direct)}; Tessera slices: ${line(waits.tessera)}, Tessera ${us(waits.tessera[2] ?? 0)}${
            floorTarget ? `; floor slices: ${line(waits.floor)}, floor ${us(waits.floor[2] ?? 0)}` : ''
          }`,
        );
      }
    }
  }
  if (failures.size > 0) console.log(`failures: ${JSON.stringify(Object.fromEntries(failures))}`);
} finally {
  tessera.child.kill('SIGTERM');
  relay?.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
}

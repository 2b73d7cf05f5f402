/**
 * Added latency and CPU a call of Tessera over calling the same fake upstream directly, set against a bare Node.js
 * relay (floor.ts) in the same run: p50/p99 of whole non-streamed responses and of time to first token for
 * streams, at fixed offered loads, in alternating slices so that the machine's noise falls on every path alike.
 *   cd server && npx tsx ../bench/gateway/run.ts [rps…] [--seconds=5] [--warmup=3] [--slice=1] [--rounds=1]
 *     [--modes=plain,stream] [--with-floor] [--workers=<n>] [--against=<checkout>] [--ladder] [--goal-p99=5]
 *     [--no-allowance] [--features] [--pin]
 * (TEST_DATABASE_URL=postgres://… puts Tessera on a fresh Postgres database, named TEST_DATABASE_PREFIX_… when
 * that is set; --no-allowance replaces the live allowance's reserve/settle, two database writes per call, by a
 * no-op to show the gateway's own cost.)
 * --with-floor: the floor relay is a path too; each row then gives Tessera's added p50, added p99 and CPU a call as
 * ratios to the relay's (issue 42's goals: CPU ≤ 1.5×, added p99 ≤ 2×).
 * --features: Tessera's calls go to `bench-full` (two weighted deployments, priced: every call costed) with a key
 * held to its organisation's and its own money budgets (reserved before each call, settled after it): issue 40's
 * gateway with routing, cost and budgets on (cache off).
 * --rounds=<n>: the whole measurement n times; after the rounds, the median of each figure and ratio over them.
 * --ladder: the loads are a rising ladder; the summary gives, for each mode and path, the highest load whose
 * median added p99 is ≤ --goal-p99 (ms, default 5), and a mode stops climbing once every path has missed it.
 * --workers=<n>: Tessera as `pnpm start` runs it with WORKERS=<n> (tessera-cluster.ts: the built server, a primary
 * and n processes on one port, on PostgreSQL and Redis; needs TEST_DATABASE_URL, REDIS_URL defaults to the local
 * one); its CPU is that of all its processes.
 * --against=<checkout>: another checkout's Tessera (a git worktree of an earlier commit, its dependencies
 * installed) as one more path in the same slices, "before" beside "after".
 * Diagnostics: --pin (see below), --diagnose (Tessera's GC pauses and event-loop delays at exit; after each row, how long each
 * process's main thread waited for a core a call in each path's slices), --cpu-prof=<dir> (a V8 CPU
 * profile), --alloc-prof=<file> (a sampled allocation profile), --node-arg=<flag> (a Node.js/V8 option for
 * Tessera), --alloc-survivors (with --alloc-prof: only what survives the young generation's scavenges),
 * --heap-snapshots=<dir> (a heap snapshot of Tessera into <dir> on each SIGUSR2 sent to its process),
 * --log-level=<level> (Tessera's; default info, the production default: one line per request),
 * --env=NAME=value (any other Tessera setting), GATEWAY_BENCH_DUMP=<file> (every call's latency in order, one
 * JSON line per phase), GATEWAY_BENCH_LOG=<file> (Tessera's warnings, errors and non-2xx request lines, and
 * Node.js's own non-JSON output, e.g. of --node-arg=--trace-gc-nvp) and GATEWAY_BENCH_STALLS=<file> (Tessera's GC
 * pauses and event-loop gaps, for clusters.ts to set against a dump's slow calls).
 * Tessera runs in its own process(es) as in production (auth, rate limits, usage metering, live-key allowance);
 * the fake upstream in another; this process only generates load. Here: the options, the processes and the
 * rounds; a row's measurement is measure.ts, the table and the medians figures.ts.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { pin, SERVER_NODE_ARGS, start } from './children';
import { type Figures, FiguresTable, median, medianFigures } from './figures';
import { failures } from './load';
import { type Path, RowMeter } from './measure';

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const seconds = Number(option('seconds') ?? 5);
const noAllowance = args.includes('--no-allowance');
const withFloor = args.includes('--with-floor');
const features = args.includes('--features');
const logLevel = option('log-level');
/** --cpu-prof=<dir>: writes a V8 CPU profile of each Tessera process into <dir> when it exits. */
const profileDir = option('cpu-prof');
/** --warmup=<s>: seconds of load on each path before measuring (the JIT keeps optimising for a few seconds). */
const warmup = Number(option('warmup') ?? 3);
/** --slice=<s>: the length of each alternating slice of the measurement (default 1 s). */
const slice = Number(option('slice') ?? 1);
const rounds = Number(option('rounds') ?? 1);
const ladder = args.includes('--ladder');
const goalP99 = Number(option('goal-p99') ?? 5);
const workers = option('workers');
const against = option('against');
const diagnose = args.includes('--diagnose');
/** --modes=plain|stream|plain,stream: which calls to measure (default both). */
const modes = (option('modes') ?? 'plain,stream').split(',').map((m) => m === 'stream');
const loads = args.filter((a) => !a.startsWith('--')).map(Number);
if (loads.length === 0) loads.push(500);
if (ladder) loads.sort((a, b) => a - b);

type Child = Awaited<ReturnType<typeof start>>;
const upstream = await start('./upstream.ts');
const upstreamUrl = upstream.info.url ?? '';
const children: Child[] = [upstream];
// A child that fails to start must not leave the others running (they would keep this process alive).
process.on('unhandledRejection', (err) => {
  console.error(err);
  for (const c of children) c.child.kill('SIGTERM');
  process.exit(1);
});
const tesseraArgs = [
  upstreamUrl,
  ...(noAllowance ? ['--no-allowance'] : []),
  ...(logLevel ? [`--log-level=${logLevel}`] : []),
  ...(diagnose ? ['--diagnose'] : []),
  ...(features ? ['--features'] : []),
  ...args.filter(
    (a) =>
      a.startsWith('--alloc-prof=') ||
      a.startsWith('--env=') ||
      a.startsWith('--heap-snapshots=') ||
      a === '--alloc-survivors',
  ),
];
const tesseraNodeArgs = [
  // As `pnpm start` runs the server (server/package.json).
  ...SERVER_NODE_ARGS,
  ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  // --node-arg=<flag>: a Node.js/V8 option for Tessera's process (repeatable), e.g. --node-arg=--max-semi-space-size=32
  ...args.filter((a) => a.startsWith('--node-arg=')).map((a) => a.slice('--node-arg='.length)),
];
async function startTessera(starter: typeof start): Promise<Child> {
  const started = workers
    ? // The options go to the cluster's primary, and cluster.fork passes them on to its processes.
      await starter(
        './tessera-cluster.ts',
        [...tesseraArgs, `--workers=${workers}`, ...tesseraNodeArgs.map((a) => `--node-arg=${a}`)],
        [],
      )
    : await starter('./tessera.ts', tesseraArgs, tesseraNodeArgs);
  children.push(started);
  return started;
}

const key = (x: Child) => ({ authorization: `Bearer ${x.info.budgetedKey ?? x.info.key}` });
const relayPath = async (name: string, x: Child): Promise<Path> => ({
  name,
  target: {
    url: `${x.info.url}/v1/chat/completions`,
    headers: key(x),
    model: x.info.budgetedKey ? 'bench-full' : 'bench-model',
  },
  // tessera-cluster.ts names the cluster's primary; its processes are its children.
  pid: Number(x.info.pid ?? x.child.pid),
});
const paths: Path[] = [
  { name: 'direct', target: { url: `${upstreamUrl}/v1/chat/completions`, headers: {}, model: 'ok' } },
  await relayPath('Tessera', await startTessera(start)),
];
if (withFloor) {
  const relay = await start('./floor.ts', [upstreamUrl]);
  children.push(relay);
  paths.push(await relayPath('relay', relay));
}
if (against) {
  // The other checkout's own starter, so that its bench/gateway/tessera.ts (and its server code) runs.
  const other = (await import(pathToFileURL(`${against}/bench/gateway/children.ts`).href)) as {
    start: typeof start;
  };
  paths.push(await relayPath('before', await startTessera(other.start)));
}

const meter = new RowMeter(paths);

/**
 * --pin: the relays' event-loop threads get CPU 1 to themselves; everything else (this load generator, the fake
 * upstream, the relays' helper threads) shares CPU 0. Postgres is left where the kernel puts it.
 */
const pinned = args.includes('--pin');
function pinAll(): void {
  if (!pinned) return;
  pin(process.pid, 0, 0);
  pin(upstream.child.pid, 0, 0);
  for (const p of paths) for (const pid of meter.pids(p)) pin(pid, 1, 0);
}

const table = new FiguresTable(paths);
const rowOptions = { seconds, slice, warmup, diagnose, upstreamPid: upstream.child.pid, pinAll };

/** Every round's figures, by load and mode. */
const measured = new Map<string, Map<string, Figures>[]>();
const cell = (rps: number, stream: boolean) => `${rps} ${stream}`;
try {
  for (let round = 1; round <= rounds; round++) {
    console.log(
      `\nround ${round} of ${rounds} (load average ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim()})`,
    );
    table.printHeader();
    for (const stream of modes) {
      for (const rps of loads) {
        // --ladder: a load above one that every path missed in the previous round's medians is not measured.
        const below = loads.filter((l) => l < rps);
        if (ladder && below.length > 0) {
          const previous = measured.get(cell(below.at(-1) as number, stream)) ?? [];
          const anyHeld = paths
            .filter((p) => p.pid)
            .some((p) => median(previous.map((f) => f.get(p.name)?.added99 ?? Number.NaN)) <= goalP99);
          if (!anyHeld) continue;
        }
        const figures = await meter.row(rps, stream, rowOptions);
        table.printRow(rps, stream, figures);
        const all = measured.get(cell(rps, stream)) ?? [];
        all.push(figures);
        measured.set(cell(rps, stream), all);
      }
    }
  }
  if (rounds > 1) {
    console.log(`\nmedians of ${rounds} rounds`);
    table.printHeader();
    for (const stream of modes) {
      for (const rps of loads) {
        const all = measured.get(cell(rps, stream));
        if (!all) continue;
        table.printRow(rps, stream, medianFigures(paths, all));
      }
    }
  }
  if (ladder) {
    for (const stream of modes) {
      const held = paths
        .filter((p) => p.pid)
        .map((p) => {
          const ok = loads.filter(
            (rps) =>
              median(
                (measured.get(cell(rps, stream)) ?? []).map((f) => f.get(p.name)?.added99 ?? Number.NaN),
              ) <= goalP99,
          );
          return `${p.name} ${ok.at(-1) ?? 'none'} rps`;
        });
      console.log(
        `highest load with added p99 ≤ ${goalP99} ms (${stream ? 'stream, TTFT' : 'non-streamed'}, of ${loads.join(', ')}): ${held.join(', ')}`,
      );
    }
  }
  if (failures.size > 0) console.log(`failures: ${JSON.stringify(Object.fromEntries(failures))}`);
} finally {
  for (const c of children) c.child.kill('SIGTERM');
}

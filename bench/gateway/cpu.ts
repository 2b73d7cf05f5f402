/**
 * CPU a call, user and system apart, of Tessera and of the floor relay (floor.ts), in a closed loop: a few calls
 * at a time, as fast as they answer, so that the process is never woken from idle and the count is the work of
 * the calls themselves. Much steadier than latency on this machine: rounds agree within ~10 µs.
 *   cd server && TEST_DATABASE_URL=postgres://… npx tsx ../bench/gateway/cpu.ts [--calls=10000]
 *     [--concurrency=4] [--rounds=3] [--stream] [--syscalls] [Tessera's options: --no-allowance,
 *     --log-level=warn, --env=NAME=value]
 * --syscalls: afterwards, the system calls a call makes, by `strace -c -f` on 1,000 sequential calls each
 * (strace must be installed).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processCpu, SERVER_NODE_ARGS, start } from './children';
import { call, type Target } from './load';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const calls = option('calls', 10_000);
const concurrency = option('concurrency', 4);
const rounds = option('rounds', 3);
const stream = args.includes('--stream');
const tesseraOptions = args.filter(
  (a) => a === '--no-allowance' || a.startsWith('--log-level=') || a.startsWith('--env='),
);

const upstream = await start('./upstream.ts');
const url = upstream.info.url ?? '';
const tessera = await start('./tessera.ts', [url, ...tesseraOptions], SERVER_NODE_ARGS);
const floor = await start('./floor.ts', [url]);
const paths = [
  ['Tessera', tessera],
  ['floor', floor],
] as const;
const target = (x: typeof tessera): Target => ({
  url: `${x.info.url}/v1/chat/completions`,
  headers: { authorization: `Bearer ${x.info.key}` },
  model: 'bench-model',
});

/** The main thread's context switches so far: [voluntary (it waited), involuntary (another task took the core)]. */
function switches(pid: number | undefined): [number, number] {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const count = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return [count('voluntary_ctxt_switches'), count('nonvoluntary_ctxt_switches')];
}

async function closedLoop(t: Target, n: number, width: number): Promise<void> {
  let sent = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (sent++ < n) if ((await call(t, stream)) === undefined) failed += 1;
    }),
  );
  if (failed > 0) throw new Error(`${failed} calls failed`);
}

try {
  console.log(
    '| round | path | user CPU a call (µs) | system CPU a call (µs) | waits a call | preemptions a call |',
  );
  console.log('|---|---|---|---|---|---|');
  for (let round = 1; round <= rounds; round++) {
    for (const [name, x] of paths) {
      const t = target(x);
      // Warm: connections, JIT, caches.
      await closedLoop(t, Math.min(4_000, calls), concurrency);
      const { user: u0, system: s0 } = processCpu(x.child.pid);
      const [v0, n0] = switches(x.child.pid);
      await closedLoop(t, calls, concurrency);
      const { user: u1, system: s1 } = processCpu(x.child.pid);
      const [v1, n1] = switches(x.child.pid);
      const us = (ms: number) => ((ms / calls) * 1000).toFixed(0);
      const each = (n: number) => (n / calls).toFixed(2);
      console.log(
        `| ${round} | ${name} | ${us(u1 - u0)} | ${us(s1 - s0)} | ${each(v1 - v0)} | ${each(n1 - n0)} |`,
      );
    }
  }
  if (args.includes('--syscalls')) {
    for (const [name, x] of paths) {
      const t = target(x);
      const trace = spawn('strace', ['-c', '-f', '-p', String(x.child.pid)], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let report = '';
      trace.stderr.on('data', (d: Buffer) => {
        report += d.toString();
      });
      // strace attaches to every thread before it counts.
      await new Promise((r) => setTimeout(r, 1_000));
      await closedLoop(t, 1_000, 1);
      trace.kill('SIGINT');
      await new Promise((r) => trace.once('exit', r));
      const rows = report
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .filter(
          (f) =>
            f.length >= 5 &&
            /^\d+$/.test(f[3] ?? '') &&
            !['futex', 'epoll_pwait', 'total'].includes(f.at(-1) ?? ''),
        );
      console.log(
        `${name}, system calls a call (1,000 sequential calls; futex and epoll_pwait left out): ${rows
          .map((f) => `${f.at(-1)} ${(Number(f[3]) / 1_000).toFixed(2)}`)
          .join(', ')}`,
      );
    }
  }
} finally {
  for (const x of [tessera, floor, upstream]) x.child.kill('SIGTERM');
}

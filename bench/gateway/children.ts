/** Starting the benchmarks' child processes (the fake upstream, Tessera, the floor relay). */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildServer, START_NODE_ARGS } from '../../server/build';

/** Node.js options Tessera's process runs with: those of `pnpm start` (server/build.ts). */
export const SERVER_NODE_ARGS = START_NODE_ARGS;

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));

/**
 * Runs a script of this folder in its own Node.js process and resolves with the first JSON line it prints that
 * has a `url` (and, for Tessera, a `key`). Tessera (tessera.ts) runs as in production: built by server/build.ts
 * together with the server's worker threads, into a folder of its own removed when it exits; the other scripts
 * run under tsx.
 */
export async function start(
  script: string,
  extra: string[] = [],
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; info: Record<string, string> }> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  let entry = ['--import', 'tsx', path];
  let built: string | undefined;
  if (script === './tessera.ts') {
    built = mkdtempSync(join(SERVER, '.dist-bench-'));
    await buildServer(basename(built), { tessera: path });
    entry = [join(built, 'tessera.js')];
  }
  const child = spawn(process.execPath, [...nodeArgs, ...entry, ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (built) {
    const folder = built;
    child.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  return new Promise((resolve, reject) => {
    // The first line with a URL; the rest of stdout (Tessera's request log) is read and dropped.
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onLine = (line: string) => {
      let info: Record<string, string>;
      try {
        info = JSON.parse(line) as Record<string, string>;
      } catch {
        return;
      }
      if (typeof info.url !== 'string') return;
      lines.off('line', onLine);
      // GATEWAY_BENCH_LOG=<file>: keeps the child's warnings, errors and non-2xx request lines.
      const keep = process.env.GATEWAY_BENCH_LOG;
      if (keep) {
        lines.on('line', (l) => {
          // Node.js/V8's own diagnostics (e.g. --node-arg=--trace-gc) are the lines that are not JSON.
          if (!l.startsWith('{') || /"level":[4-6]0|"status":[3-5]\d\d/.test(l))
            appendFileSync(keep, `${l}\n`);
        });
      } else {
        // The rest is drained unread. Splitting Tessera's request log (a line per call) into strings here would
        // load this process, which times every call, during Tessera's slices only: it inflated Tessera's
        // measured latency, not the direct calls'.
        lines.close();
        child.stdout?.resume();
      }
      resolve({ child, info });
    };
    lines.on('line', onLine);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/**
 * User and system CPU time (ms) a process has used, all its threads, from /proc: contention inflates latency,
 * not this. utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux), after the
 * command name in parentheses.
 */
export function processCpu(pid: number | undefined): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** A process's resident memory now (MB, VmRSS of /proc/<pid>/status: every thread's heap, code and buffers). */
export function residentMb(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * Time (ms) a process's main thread has spent runnable but waiting for a core, from /proc/<pid>/schedstat (its
 * second field, in ns; the kernel's schedstats). Where the load comes from when latency is not CPU.
 */
export function coreWait(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ');
  return Number(fields[1]) / 1e6;
}

/**
 * Pins a process's main thread to CPU `main` and its other threads (V8's GC and compiler helpers, libuv's pool)
 * to CPU `others`, with `taskset` (util-linux). Threads made later inherit the creating thread's CPUs, so the
 * runner pins again before each measurement.
 */
export function pin(pid: number | undefined, main: number, others: number): void {
  if (!pid) return;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const cpu = Number(tid) === pid ? main : others;
    execFileSync('taskset', ['-p', '-c', String(cpu), tid], { stdio: 'ignore' });
  }
}

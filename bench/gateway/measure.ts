/**
 * run.ts's measurement of one row: every path at one load and mode, in alternating slices, with the CPU and
 * resident memory of each path's processes (a cluster's primary and its server processes together).
 */
import { execFileSync } from 'node:child_process';
import { coreWait, processCpu, residentMb } from './children';
import type { Figures } from './figures';
import { type PhaseResult, percentile, runPhase, type Target } from './load';

export interface Path {
  name: string;
  target: Target;
  /** The process whose CPU (with its descendants') and memory count as the path's; none for the direct calls. */
  pid?: number;
}

export interface RowOptions {
  /** Seconds of load on each path, cut into slices of `slice` seconds. */
  seconds: number;
  slice: number;
  /** Seconds of load on each path before measuring (the JIT keeps optimising for a few seconds). */
  warmup: number;
  /** How long each main thread waited for a core, printed after the row. */
  diagnose: boolean;
  upstreamPid: number | undefined;
  /** Pins the processes to their cores (--pin), again after the warm-up started new threads. */
  pinAll: () => void;
}

/** A process and its descendants (a cluster's primary and its server processes), from /proc. */
function processTree(pid: number): number[] {
  let found = [pid];
  try {
    const out = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
    for (const child of out.split('\n').filter(Boolean)) found = found.concat(processTree(Number(child)));
  } catch {
    // pgrep exits 1 when there is no child.
  }
  return found;
}

export class RowMeter {
  private readonly trees: Map<string, number[]>;

  constructor(private readonly paths: Path[]) {
    this.trees = new Map(paths.map((p) => [p.name, p.pid ? processTree(p.pid) : []]));
  }

  /** The processes of a path. */
  pids(path: Path): number[] {
    return this.trees.get(path.name) ?? [];
  }

  /** CPU time (user + system, ms) a path's processes have used. */
  private cpuMs(path: Path): number {
    let ms = 0;
    for (const pid of this.pids(path)) {
      const { user, system } = processCpu(pid);
      ms += user + system;
    }
    return ms;
  }

  /** Resident memory (MB) of a path's processes together. */
  private resident(path: Path): number {
    return this.pids(path).reduce((sum, pid) => sum + residentMb(pid), 0);
  }

  /**
   * Resident memory (MB) of a path's processes, every thread included, sampled every 100 ms while its slices
   * run: the median and the peak of the row.
   */
  private sampleResident(path: Path, into: number[]): () => void {
    const timer = setInterval(() => into.push(this.resident(path)), 100);
    into.push(this.resident(path));
    return () => {
      clearInterval(timer);
      into.push(this.resident(path));
    };
  }

  /** Measures every path at one load and mode; returns each path's figures. */
  async row(rps: number, stream: boolean, options: RowOptions): Promise<Map<string, Figures>> {
    options.pinAll();
    // Warm every path (connections, JIT, key cache) before measuring.
    for (const p of this.paths) await runPhase(p.target, stream, rps, options.warmup);
    options.pinAll();
    const results = new Map(this.paths.map((p) => [p.name, { latencies: [] as number[], errors: 0 }]));
    const cpu = new Map(this.paths.map((p) => [p.name, 0]));
    const rss = new Map(this.paths.map((p) => [p.name, [] as number[]]));
    // --diagnose: how long the main threads waited for a core (runnable, not running) in each path's slices:
    // the load generator's, the upstream's, the path's own.
    const waits = new Map(this.paths.map((p) => [p.name, [0, 0, 0]]));
    const slices = Math.max(1, Math.round(options.seconds / options.slice));
    for (let i = 0; i < slices; i++) {
      // Measured in alternating slices (direct, Tessera, relay, …) so that the machine's noise, which comes
      // in bursts of a second or more here, falls on every path alike.
      for (const p of this.paths) {
        const pids = [process.pid, options.upstreamPid, p.pid];
        const waitedBefore = options.diagnose ? pids.map((x) => (x ? coreWait(x) : 0)) : [];
        const cpuBefore = this.cpuMs(p);
        const stopSampling = p.pid ? this.sampleResident(p, rss.get(p.name) ?? []) : () => {};
        const part: PhaseResult = await runPhase(p.target, stream, rps, options.seconds / slices);
        stopSampling();
        cpu.set(p.name, (cpu.get(p.name) ?? 0) + this.cpuMs(p) - cpuBefore);
        if (options.diagnose) {
          const w = waits.get(p.name) ?? [];
          pids.forEach((x, j) => {
            if (x) w[j] = (w[j] ?? 0) + coreWait(x) - (waitedBefore[j] ?? 0);
          });
        }
        const into = results.get(p.name);
        if (!into) continue;
        for (const latency of part.latencies) into.latencies.push(latency);
        into.errors += part.errors;
      }
    }
    const calls = Math.round(rps * options.seconds);
    const figures = new Map<string, Figures>();
    const direct = results.get('direct');
    direct?.latencies.sort((a, b) => a - b);
    const d50 = percentile(direct?.latencies ?? [], 50);
    const d99 = percentile(direct?.latencies ?? [], 99);
    for (const p of this.paths) {
      const r = results.get(p.name) ?? { latencies: [], errors: 0 };
      r.latencies.sort((a, b) => a - b);
      const samples = [...(rss.get(p.name) ?? [])].sort((a, b) => a - b);
      const p50 = percentile(r.latencies, 50);
      const p99 = percentile(r.latencies, 99);
      figures.set(p.name, {
        p50,
        p99,
        added50: p50 - d50,
        added99: p99 - d99,
        cpu: (cpu.get(p.name) ?? 0) / calls,
        rssMedian: percentile(samples, 50),
        rssPeak: samples.at(-1) ?? 0,
        errors: r.errors,
      });
    }
    if (options.diagnose) {
      const us = (ms: number) => ((ms * 1000) / calls).toFixed(0);
      console.log(
        `  waits for a core a call (µs, main threads; load generator, upstream, the path): ${this.paths
          .map((p) => {
            const [g = 0, u = 0, own = 0] = waits.get(p.name) ?? [];
            return `${p.name} slices ${us(g)}, ${us(u)}${p.pid ? `, ${us(own)}` : ''}`;
          })
          .join('; ')}`,
      );
    }
    return figures;
  }
}

/**
 * The main thread's heap. `pnpm start` (server/package.json) runs node with five V8 options, each measured with
 * bench/gateway/run.ts at 1,000 requests a second on a 2-core machine:
 * - `--max-semi-space-size=32`: a young generation of up to 32 MB a semi-space (V8's default is 16 on this
 *   machine); scavenges come half as often and promote less, so major GCs, whose marking takes a core from a busy
 *   2-core machine, are rarer. It was 64, which kept 128 MB of new space resident from start-up on: 265–300 MB RSS
 *   at 1,000 requests a second against 200–240 MB with 32, at the same CPU a call (`bench/gateway/run.ts` prints
 *   the RSS of each row).
 * - `--min-semi-space-size=16` and `--no-memory-reducer`: after a few quiet seconds the memory reducer ran a full
 *   GC and shrank the young generation to ~1 MB; the next burst then met a scavenge every 20–50 ms while it grew
 *   back, and calls queued up to 0.7 s. The price: the heap is not given back after a burst (~18 MB more RSS).
 * - `--no-allocation-site-pretenuring`: V8 chose to allocate some of zod's per-request parse objects straight in
 *   the old generation, where they died as garbage for the major GC; without it the old generation grows ~30 %
 *   less a scavenge under load.
 * - `--heap-growing-percent=30`: the old generation may grow 30 % past what the last major GC left before the next
 *   one. V8's own factor (up to 4× on a large machine) let ~35 MB live grow to 95 MB of old space in 90 s at 1,000
 *   requests a second, RSS 200 → 297 MB and still rising (what survives scavenges is mostly in-flight requests and
 *   the usage events waiting for their batch); with 30 % the old space stayed under ~60 MB and RSS levelled at
 *   ~255 MB, at the same CPU a call (2026-11-29, Intel Xeon, `run.ts 1000 --rounds=4 --diagnose`).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * One full garbage collection, once start-up is done and before the server takes requests. Start-up (loading and
 * transforming the modules, migrations, the catalogue) leaves its objects, live and dead, in both generations,
 * and the first scavenges under load sort them out: at 1,000 requests a second the first two often paused the
 * server 50–65 ms each (--trace-gc), 5–12 ms with this collection done first; the later ones are alike either
 * way. A full collection of an idle process costs tens of milliseconds, before the port opens.
 * `gc` is made reachable in a context of its own, not exposed to the application's global scope.
 * Returns the milliseconds it took, or undefined if this Node.js would not allow it.
 */
export function collectStartupGarbage(): number | undefined {
  try {
    if (!collect) {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
    const started = performance.now();
    collect();
    return performance.now() - started;
  } catch {
    return undefined;
  }
}

/**
 * `pnpm start` gives the server a young generation of 16 to 32 MB a semi-space (`--min-semi-space-size`,
 * `--max-semi-space-size`, above). V8's flags are the process's, and they win over a worker's
 * `resourceLimits`: every worker thread made afterwards (the usage writer, the counting thread, code analysis)
 * got 16 MB semi-spaces that could grow to the maximum (64 MB then), whatever its limits asked. The usage writer's heap grew to
 * ~140 MB for ~10 MB live; with only the minimum reset, its new space still grew to 134 MB. The main thread's
 * heap is sized when the process starts, so both flags can go back to V8's default (0: unset) for the threads
 * made later, which then keep what their `resourceLimits` ask (the usage writer: 8 MB; lib/heap.test.ts checks
 * it). Called once, before any worker thread is started; does nothing if this Node.js refuses flags at
 * run time.
 */
export function releaseWorkersYoungGeneration(): void {
  try {
    setFlagsFromString('--min-semi-space-size=0');
    setFlagsFromString('--max-semi-space-size=0');
  } catch {
    // The flags are frozen: the workers keep the process's setting.
  }
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * One full garbage collection, once start-up is done and before the server takes requests. Start-up (loading and
 * transforming the modules, migrations, the catalogue) leaves its objects, live and dead, in both generations,
 * and the first scavenges under load sort them out: at 1,000 requests a second the first two often paused the
 * server 50–65 ms each (--trace-gc), 5–12 ms with this collection done first; the later ones are alike either
 * way (BENCHMARKS.md). A full collection of an idle process costs tens of milliseconds, before the port opens.
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
 * `pnpm start` gives the server a young generation of 16 to 64 MB a semi-space (`--min-semi-space-size`,
 * `--max-semi-space-size`, ARCHITECTURE.md). V8's flags are the process's, and they win over a worker's
 * `resourceLimits`: every worker thread made afterwards (the usage writer, the counting thread, code analysis)
 * got 16 MB semi-spaces that could grow to 64 MB, whatever its limits asked. The usage writer's heap grew to
 * ~140 MB for ~10 MB live. The main thread's heap is sized when the process starts, so both flags can go back to
 * V8's default (0: unset) for the threads made later (BENCHMARKS.md, 2026-11-24, seventh session, and
 * 2026-11-25). Called once, before any worker thread is started; does nothing if this Node.js refuses flags at
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

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * One full garbage collection, once start-up is done and before the server takes requests. Start-up (loading and
 * transforming the modules, migrations, the catalogue) leaves ~50 MB of garbage in the old generation. Until a
 * major GC comes by itself, tens of seconds into serving, every young-generation scavenge works through that
 * heap too: under 1,000 requests a second the first scavenges paused the server 50–65 ms and the next ones
 * 7–10 ms, against 3.5–5 ms after a full collection (BENCHMARKS.md). A full collection of an idle process costs
 * tens of milliseconds, before the port opens.
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

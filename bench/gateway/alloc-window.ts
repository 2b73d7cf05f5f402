/**
 * A sampled allocation profile of this process over a window that another process opens and closes with signals
 * (alloc.ts): the first SIGUSR2 starts V8's sampling heap profiler, the second writes the profile to `file`, so
 * that it holds exactly the calls sent in between (the warm-up's JIT and caches left out).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

export function allocationWindow(file: string, options: { survivors?: boolean } = {}): void {
  const session = new Session();
  session.connect();
  let started = false;
  process.on('SIGUSR2', () => {
    if (!started) {
      started = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !options.survivors,
      });
      return;
    }
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) process.stderr.write(`allocation profile failed: ${err.message}\n`);
      else writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}

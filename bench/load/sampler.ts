/**
 * Loaded into each server process with `node --import` (the product is not changed for the bench): every 10 s it
 * appends one JSON line to LOAD_SAMPLE_FILE with RSS, heap, CPU
 * and the event-loop delay of the last 10 s.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LOAD_SAMPLE_FILE;
const everyMs = Number(process.env.LOAD_SAMPLE_EVERY_MS ?? 10_000);
// The histogram counts the whole timer interval, so a value of RESOLUTION_MS means no delay at all.
const RESOLUTION_MS = 10;

if (file) {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const started = Date.now();
  let cpu = process.cpuUsage();
  let last = performance.now();
  const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    // CPU of the whole process (main thread and workers) as a share of one core over the interval.
    const used = process.cpuUsage(cpu);
    const now = performance.now();
    const cpuPct = ((used.user + used.system) / 1000 / (now - last)) * 100;
    cpu = process.cpuUsage();
    last = now;
    const sample = {
      pid: process.pid,
      at: Date.now(),
      t: Math.round((Date.now() - started) / 1000),
      rssMb: memory.rss / 2 ** 20,
      heapUsedMb: memory.heapUsed / 2 ** 20,
      heapTotalMb: memory.heapTotal / 2 ** 20,
      cpuPct,
      loopP50Ms: ms(delay.percentile(50)),
      loopP99Ms: ms(delay.percentile(99)),
      loopMaxMs: ms(delay.max),
    };
    delay.reset();
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, everyMs);
  timer.unref();
}

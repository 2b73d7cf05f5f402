import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * What one abusive request cost the process that serves it (the test's own: the server runs in-process): the
 * event loop's longest stall while it was answered, and how far the heap grew, at its peak and once collected.
 */
export interface Cost {
  stallMs: number;
  peakHeapGrowthMb: number;
  retainedHeapGrowthMb: number;
}

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;

function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * Runs `work` (one request, sent and answered) and measures it: perf_hooks' event-loop delay histogram at 5 ms
 * resolution gives the longest stall, and a sampler on the same timer the heap's peak (a loop held by synchronous
 * work samples nothing meanwhile, but the heap it built is still there when the loop comes back).
 */
export async function measure(work: () => Promise<unknown>): Promise<Cost> {
  collect();
  const base = heapUsed();
  let peak = base;
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const sampler = setInterval(() => {
    peak = Math.max(peak, heapUsed());
  }, 5);
  histogram.enable();
  try {
    await work();
  } finally {
    // One more turn, so that a stall at the very end of the work is in the histogram.
    await new Promise((resolve) => setTimeout(resolve, 10));
    histogram.disable();
    clearInterval(sampler);
  }
  peak = Math.max(peak, heapUsed());
  collect();
  return {
    stallMs: histogram.max / 1e6,
    peakHeapGrowthMb: (peak - base) / MB,
    retainedHeapGrowthMb: (heapUsed() - base) / MB,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * The cost of `work` over `rounds` runs: the smallest of the rounds' longest stalls, and the median of the heap's
 * growth. Work that holds the event loop does so every round, while the machine's own pauses (other processes on a
 * shared 2-core machine, the test's own GC) come and go: the smallest stall is the request's, not the machine's.
 */
export async function costOver(work: () => Promise<unknown>, rounds = 3): Promise<Cost> {
  const costs: Cost[] = [];
  for (let i = 0; i < rounds; i++) costs.push(await measure(work));
  return {
    stallMs: Math.min(...costs.map((c) => c.stallMs)),
    peakHeapGrowthMb: median(costs.map((c) => c.peakHeapGrowthMb)),
    retainedHeapGrowthMb: median(costs.map((c) => c.retainedHeapGrowthMb)),
  };
}

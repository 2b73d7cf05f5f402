/**
 * Where Tessera's slow calls come from: reads a run's GATEWAY_BENCH_DUMP (every call's latency, by slice) and
 * GATEWAY_BENCH_STALLS (Tessera's GC pauses and event-loop gaps of 4 ms or more, with absolute times) and prints
 * each cluster of slow calls in Tessera's measured slices with the pauses and gaps around it, then a summary.
 *   rm -f /tmp/d.jsonl; GATEWAY_BENCH_DUMP=/tmp/d.jsonl GATEWAY_BENCH_STALLS=/tmp/s.json npx tsx ../bench/gateway/run.ts 1000 --modes=plain
 *   npx tsx ../bench/gateway/clusters.ts /tmp/d.jsonl /tmp/s.json [--slow=6] [--quiet]
 * A cluster: calls slower than --slow ms (default 6), with at most one faster call between two of them.
 */
import { readFileSync } from 'node:fs';

interface Phase {
  url: string;
  stream: boolean;
  interval: number;
  t0: number;
  lat: (number | null)[];
}
interface Stalls {
  origin: number;
  gcPauses: { start: number; duration: number; kind: string }[];
  gaps: { at: number; gap: number; cpu: number }[];
  /** Usage batches written: start, duration until committed, events (absent from older stall files). */
  usageWrites?: { at: number; ms: number; events: number }[];
}

const [dumpFile, stallsFile] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!dumpFile || !stallsFile)
  throw new Error('usage: clusters.ts <dump.jsonl> <stalls.json> [--slow=6] [--quiet]');
const slow = Number(process.argv.find((a) => a.startsWith('--slow='))?.split('=')[1] ?? 6);
const quiet = process.argv.includes('--quiet');

const phases = readFileSync(dumpFile, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Phase);
const stalls = JSON.parse(readFileSync(stallsFile, 'utf8')) as Stalls;
// run.ts warms the direct path first, then Tessera: the second phase's URL is Tessera's. For each load and mode
// Tessera's first phase is its warm-up; the measured slices follow.
const tesseraUrl = phases[1]?.url;
const warmed = new Set<string>();
const slices = phases.filter((p) => {
  if (p.url !== tesseraUrl) return false;
  const group = `${p.interval} ${p.stream}`;
  if (warmed.has(group)) return true;
  warmed.add(group);
  return false;
});
const gcs = stalls.gcPauses.map((p) => ({ at: stalls.origin + p.start, ms: p.duration, kind: p.kind }));
const gaps = stalls.gaps.map((g) => ({ at: stalls.origin + g.at, ms: g.gap, cpu: g.cpu }));
const writes = (stalls.usageWrites ?? []).map((w) => ({
  at: stalls.origin + w.at,
  ms: w.ms,
  events: w.events,
}));

let clusters = 0;
let withGc = 0;
let withGap = 0;
let withWrite = 0;
let slowCalls = 0;
const near = <T extends { at: number; ms: number }>(list: T[], from: number, to: number) =>
  list.filter((e) => e.at + e.ms >= from - 30 && e.at <= to);
for (const [n, slice] of slices.entries()) {
  const lat = slice.lat.map((l) => l ?? Number.POSITIVE_INFINITY);
  for (let i = 0; i < lat.length; i++) {
    if ((lat[i] as number) <= slow) continue;
    let j = i;
    let max = 0;
    while (j < lat.length && ((lat[j] as number) > slow || (lat[j + 1] ?? 0) > slow)) {
      max = Math.max(max, lat[j] as number);
      if ((lat[j] as number) > slow) slowCalls++;
      j++;
    }
    // Call i was sent at t0 + i × interval; the cluster lasts until its last call's answer.
    const from = slice.t0 + i * slice.interval;
    const to = slice.t0 + j * slice.interval + max;
    const g = near(gcs, from, to);
    const l = near(gaps, from, to);
    const w = near(writes, from, to);
    clusters++;
    if (w.length > 0) withWrite++;
    if (g.length > 0) withGc++;
    if (l.length > 0) withGap++;
    if (!quiet)
      console.log(
        `slice ${n} at ${(from - slice.t0).toFixed(0)} ms: ${j - i} calls, max ${max.toFixed(1)} ms; GC ${
          g.map((e) => `${e.kind} ${e.ms.toFixed(1)}@${(e.at - from).toFixed(0)}`).join(' ') || 'none'
        }; loop gaps ${l.map((e) => `${e.ms.toFixed(1)} (cpu ${e.cpu.toFixed(1)})@${(e.at - from).toFixed(0)}`).join(' ') || 'none'}; usage writes ${w.map((e) => `${e.events} in ${e.ms.toFixed(1)}@${(e.at - from).toFixed(0)}`).join(' ') || 'none'}`,
      );
    i = j;
  }
}
const inSlices = <T extends { at: number }>(list: T[]) =>
  list.filter((e) => slices.some((s) => e.at >= s.t0 && e.at <= s.t0 + s.lat.length * s.interval));
const gcIn = inSlices(gcs);
const gapsIn = inSlices(gaps);
const sum = (list: { ms: number }[]) => list.reduce((a, e) => a + e.ms, 0).toFixed(0);
const cpuIn = gapsIn.reduce((a, e) => a + e.cpu, 0).toFixed(0);
console.log(
  `${slices.length} slices: ${slowCalls} calls over ${slow} ms in ${clusters} clusters; ${withGc} with a GC pause near, ${withGap} with a loop gap near, ${withWrite} with a usage write near. ` +
    `In the slices: ${gcIn.length} GC pauses (${sum(gcIn)} ms), ${gapsIn.length} loop gaps of 4 ms or more (${sum(gapsIn)} ms, of which the process ran ${cpuIn} ms).`,
);

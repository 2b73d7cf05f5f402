/**
 * Whether the machine itself stops: a process that does nothing but wake every 5 ms notes each wake-up that came
 * 8 ms or more late, and any steal time the kernel counted meanwhile (/proc/stat), with absolute times. Run it
 * beside a benchmark and set its pauses against Tessera's stalls (GATEWAY_BENCH_STALLS): a stall that this idle
 * process saw too, at the same moment, is the machine's, not Tessera's.
 *   npx tsx ../bench/gateway/machine-pauses.ts /tmp/pauses.json &   # then run the benchmark; then kill %1
 * Written when the process gets SIGTERM or SIGINT: [{at (epoch ms), late (ms), steal: [ticks a CPU]}].
 */
import { readFileSync, writeFileSync } from 'node:fs';

const out = process.argv[2];
if (!out) throw new Error('usage: machine-pauses.ts <out.json>');

/** Steal ticks so far, a CPU: the 8th value of each `cpuN` line. */
function steal(): number[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d/.test(line))
    .map((line) => Number(line.split(/\s+/)[8]));
}

const pauses: { at: number; late: number; steal: number[] }[] = [];
let prevSteal = steal();
let prev = Date.now();
setInterval(() => {
  const now = Date.now();
  const current = steal();
  const stolen = current.map((v, i) => v - (prevSteal[i] ?? 0));
  if (now - prev >= 8 || stolen.some((x) => x > 0))
    pauses.push({ at: prev, late: now - prev, steal: stolen });
  prevSteal = current;
  prev = now;
}, 5);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    writeFileSync(out, JSON.stringify(pauses));
    process.exit(0);
  });
}

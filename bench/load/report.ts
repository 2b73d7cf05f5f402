/** Markdown tables for BENCHMARKS.md from a phase's outcomes and the servers' samples. */
import { readFileSync } from 'node:fs';
import type { Throttling } from './cgroup';
import type { CpuShares } from './cpu-usage';
import { percentile } from './generator';
import { type Kind, LABELS, type Outcome } from './workload';

export interface Sample {
  pid: number;
  at: number;
  rssMb: number;
  heapUsedMb: number;
  cpuPct: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

export function endpointTable(outcomes: Outcome[], elapsedS: number, notSent: number): string {
  const rows = [
    '| Endpoint | Requests | Throughput (req/s) | p50 ms | p99 ms | Errors by status |',
    '|---|---:|---:|---:|---:|---|',
  ];
  const kinds = Object.keys(LABELS) as Kind[];
  const line = (label: string, of: Outcome[]) => {
    const ok = of.filter((o) => o.status === 200);
    const ms = ok.map((o) => o.ms).sort((a, b) => a - b);
    const errors = new Map<number, number>();
    for (const o of of) if (o.status !== 200) errors.set(o.status, (errors.get(o.status) ?? 0) + 1);
    const errorText = [...errors]
      .map(([s, n]) => `${s === 0 ? 'conn' : s === -1 ? 'no [DONE]' : s}: ${n}`)
      .join(', ');
    rows.push(
      `| ${label} | ${of.length} | ${f(ok.length / elapsedS)} | ${f(percentile(ms, 50))} | ${f(percentile(ms, 99))} | ${errorText || 'none'} |`,
    );
  };
  for (const kind of kinds)
    line(
      LABELS[kind],
      outcomes.filter((o) => o.kind === kind),
    );
  line('**all**', outcomes);
  if (notSent > 0) rows.push(`\n${notSent} scheduled requests not sent (generator's in-flight cap reached).`);
  return rows.join('\n');
}

export function readSamples(file: string): Sample[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Sample);
  } catch {
    return [];
  }
}

/** The 10 s series of one instance, from `since` (wall clock ms), t relative to it. */
export function memoryTable(samples: Sample[], since: number, phaseOf: (at: number) => string): string {
  const rows = [
    '| t (s) | phase | RSS MB | heap used MB | CPU % of a core | loop delay p50 ms | p99 ms | max ms |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of samples) {
    rows.push(
      `| ${Math.round((s.at - since) / 1000)} | ${phaseOf(s.at)} | ${f(s.rssMb)} | ${f(s.heapUsedMb)} | ${f(s.cpuPct, 0)} | ${f(s.loopP50Ms, 2)} | ${f(s.loopP99Ms, 2)} | ${f(s.loopMaxMs, 1)} |`,
    );
  }
  return rows.join('\n');
}

export interface ScalingRow {
  n: number;
  /** The CPU quota of each instance, in cores; undefined when unlimited. */
  cores: number | undefined;
  outcomes: Outcome[];
  elapsedS: number;
  cpu: CpuShares;
  throttling: Throttling[];
}

/** One row per instance count: throughput and latency of the closed loop, and where the CPU went meanwhile. */
export function scalingTable(rows: ScalingRow[]): string {
  const pct = (share: number) => (share * 100).toFixed(0);
  const lines = [
    '| Instances | CPU limit each | Throughput (req/s) | p50 ms | p99 ms | CPU per instance (% of a core) | Periods throttled | Postgres | Redis | Generator | Idle (cores) | Errors |',
    '|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const { n, cores, outcomes, elapsedS, cpu, throttling } of rows) {
    const ok = outcomes.filter((o) => o.status === 200);
    const ms = ok.map((o) => o.ms).sort((a, b) => a - b);
    const throttled = throttling
      .map((t) => `${pct(t.throttledPeriods / Math.max(1, t.periods))}%`)
      .join(', ');
    lines.push(
      `| ${n} | ${cores ?? 'none'} | ${f(ok.length / elapsedS, 0)} | ${f(percentile(ms, 50))} | ${f(percentile(ms, 99))} | ${cpu.instances.map(pct).join(', ')} | ${throttled || '–'} | ${pct(cpu.postgres)}% | ${pct(cpu.redis)}% | ${pct(cpu.generator)}% | ${f(cpu.idleCores, 2)} | ${outcomes.length - ok.length} |`,
    );
  }
  return lines.join('\n');
}

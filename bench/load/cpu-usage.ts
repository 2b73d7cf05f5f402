/**
 * Where the machine's CPU went during a phase, from Linux's /proc: each server (all its threads and children), the
 * Postgres and Redis processes, the generator (this process) and what was left idle. It is what shows whether
 * the instances or something they share was the limit.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: /proc reports CPU time in ticks of 10 ms on every Linux architecture Node supports. */
const TICK_MS = 10;

export interface CpuSnapshot {
  at: number;
  instancesMs: number[];
  postgresMs: number;
  redisMs: number;
  generator: NodeJS.CpuUsage;
  idleMs: number;
  totalMs: number;
}

/** Shares of one core over the phase (1 = a whole core), except `idleCores` which is in cores of the machine. */
export interface CpuShares {
  instances: number[];
  postgres: number;
  redis: number;
  generator: number;
  idleCores: number;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process exited between listing and reading
  }
}

/** utime + stime of one process; the command name is in parentheses and may contain spaces. */
function processMs(pid: number | string): number {
  const stat = read(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, utime field 14, stime field 15.
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_MS;
}

/** Every live process with this command name; backends that came and went during the phase are not counted. */
function commandMs(names: string[]): number {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (/^\d+$/.test(pid) && names.includes(read(`/proc/${pid}/comm`).trim())) ms += processMs(pid);
  }
  return ms;
}

function machineMs(): { idleMs: number; totalMs: number } {
  const [, ...ticks] = (read('/proc/stat').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait count as idle.
  const totalMs = ticks.slice(0, 8).reduce((a, b) => a + b, 0) * TICK_MS;
  return { idleMs: ((ticks[3] ?? 0) + (ticks[4] ?? 0)) * TICK_MS, totalMs };
}

/** `instances`: the processes of each instance, read at each snapshot (one that started in between counts whole). */
export function cpuSnapshot(instances: number[][]): CpuSnapshot {
  return {
    at: performance.now(),
    instancesMs: instances.map((pids) => pids.reduce((ms, pid) => ms + processMs(pid), 0)),
    postgresMs: commandMs(['postgres']),
    redisMs: commandMs(['redis-server']),
    generator: process.cpuUsage(),
    ...machineMs(),
  };
}

export function cpuSince(before: CpuSnapshot, instances: number[][]): CpuShares {
  const now = cpuSnapshot(instances);
  const wallMs = now.at - before.at;
  const used = process.cpuUsage(before.generator);
  return {
    instances: now.instancesMs.map((ms, i) => (ms - (before.instancesMs[i] ?? 0)) / wallMs),
    postgres: (now.postgresMs - before.postgresMs) / wallMs,
    redis: (now.redisMs - before.redisMs) / wallMs,
    generator: (used.user + used.system) / 1000 / wallMs,
    idleCores: (now.idleMs - before.idleMs) / wallMs,
  };
}

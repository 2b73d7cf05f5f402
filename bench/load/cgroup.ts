/**
 * A fixed CPU budget per Tessera instance, as a container's CPU limit gives it in production (Kubernetes
 * `limits.cpu: 300m` becomes a CFS quota of 30 ms of CPU per 100 ms period): one cgroup v1 `cpu` group per
 * instance slot, holding only that slot's server process. The bench itself, Postgres, Redis and the load
 * generator stay outside, so that they are not what limits throughput.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup/cpu';
/** The kernel's and Kubernetes' default period. */
const PERIOD_US = 100_000;

export interface CpuBudget {
  dir: string;
  cores: number;
  /** A process writes its pid here to enter the group (servers.ts does it before exec'ing node). */
  procsFile: string;
}

export interface Throttling {
  periods: number;
  throttledPeriods: number;
  throttledMs: number;
}

/** One group per slot, named after the bench's pid so that concurrent or crashed runs never collide. */
export function createCpuBudgets(count: number, cores: number): CpuBudget[] {
  if (!(cores > 0) || cores * PERIOD_US < 1000)
    throw new Error('--cpu-per-instance must be at least 0.01 (cores)');
  const budgets: CpuBudget[] = [];
  try {
    for (let i = 1; i <= count; i++) {
      const dir = join(ROOT, `tessera-bench-${process.pid}-${i}`);
      mkdirSync(dir);
      budgets.push({ dir, cores, procsFile: join(dir, 'cgroup.procs') });
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
    }
  } catch (err) {
    removeCpuBudgets(budgets);
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `--cpu-per-instance needs a writable cgroup v1 cpu controller at ${ROOT} (root on a host, or a privileged ` +
        `container with cgroups mounted read-write): ${reason}`,
    );
  }
  return budgets;
}

/** The server and what it started (tsx's esbuild service): children stay in their parent's group. */
export function processesIn(budget: CpuBudget): number[] {
  return readFileSync(budget.procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Cumulative since the group was created: diff two readings for one phase. */
export function readThrottling(budget: CpuBudget): Throttling {
  const stat = new Map(
    readFileSync(join(budget.dir, 'cpu.stat'), 'utf8')
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  return {
    periods: Number(stat.get('nr_periods') ?? 0),
    throttledPeriods: Number(stat.get('nr_throttled') ?? 0),
    throttledMs: Number(stat.get('throttled_time') ?? 0) / 1e6,
  };
}

export function throttlingSince(budget: CpuBudget, before: Throttling): Throttling {
  const now = readThrottling(budget);
  return {
    periods: now.periods - before.periods,
    throttledPeriods: now.throttledPeriods - before.throttledPeriods,
    throttledMs: now.throttledMs - before.throttledMs,
  };
}

/**
 * Called after the servers have exited. A group can only be removed once empty; a process still in one (a server
 * that would not die) is moved back to the root group first so that the group never outlives the bench.
 */
export function removeCpuBudgets(budgets: CpuBudget[]): void {
  for (const { dir, procsFile } of budgets) {
    try {
      for (const pid of readFileSync(procsFile, 'utf8').split('\n').filter(Boolean)) {
        writeFileSync(join(ROOT, 'cgroup.procs'), pid);
      }
      rmdirSync(dir);
    } catch (err) {
      process.stderr.write(`could not remove ${dir}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../helpers/database';
import { exited, newDataDir, type ServerProcess, startServerProcess } from '../helpers/process';

// WORKERS: the real entry point (src/main.ts, built) as a cluster of server processes on one port
// (src/cluster.ts). Needs PostgreSQL and Redis, which keep keys, limits and usage exact across the processes.
const REDIS_URL = process.env.TEST_REDIS_URL;
const POSTGRES = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The pids of a process's children. */
function children(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    // A probe that throws (a connection refused) has not seen it yet.
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `GET /v1/models` without a key on a new connection each time: the primary hands connections out in turn. */
async function refusedCalls(url: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/v1/models`, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

/** The summed count of 401s on /v1/models in the metrics listener's exposition. */
function refusedCount(exposition: string): number {
  const line = exposition
    .split('\n')
    .find(
      (l) =>
        l.startsWith('tessera_http_requests_total{') &&
        l.includes('route="/v1/models"') &&
        l.includes('status="401"'),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe.skipIf(!REDIS_URL || !POSTGRES)('WORKERS=2: one port served by two processes', () => {
  it('serves from both, sums their metrics, replaces one that dies, and stops them all on SIGTERM', async () => {
    const database = await openTestDatabase({ migrated: true });
    const dataDir = newDataDir('cluster', { empty: true });
    dirs.push(dataDir);
    let server: ServerProcess | undefined;
    try {
      server = await startServerProcess(dataDir, {
        DATABASE_URL: database.url ?? '',
        REDIS_URL: REDIS_URL ?? '',
        WORKERS: '2',
        LOG_LEVEL: 'info',
        SEED_DEMO: 'false',
      });
      const { child, url } = server;
      const primary = child.pid as number;
      expect(server.output()).toContain('(2 server processes)');
      const listening = () => server?.output().split('server process listening').length ?? 0;
      const first = await until('two server processes listening', () => {
        const pids = children(primary);
        return pids.length === 2 && listening() - 1 === 2 ? pids : undefined;
      });
      const metricsUrl = await until(
        'the metrics listener',
        () => /"metrics":"(http:[^"]+)"/.exec(server?.output() ?? '')?.[1],
      );

      expect(await refusedCalls(url, 20)).toEqual(Array(20).fill(401));
      // Each process meters its own requests; the primary's listener answers with their sum.
      const summed = await until('the 20 refusals in the summed metrics', async () => {
        const text = await (await fetch(metricsUrl)).text();
        return refusedCount(text) === 20 ? text : undefined;
      });
      expect(summed).toContain('tessera_http_requests_total');

      // One process killed: the primary starts another, and the port keeps answering meanwhile.
      process.kill(first[0] as number, 'SIGKILL');
      const replaced = await until('a replacement process', () => {
        const pids = children(primary);
        return pids.length === 2 && !pids.includes(first[0] as number) ? pids : undefined;
      });
      expect(replaced).toContain(first[1]);
      await until('the port answering', async () =>
        (await refusedCalls(url, 1))[0] === 401 ? true : undefined,
      );
      // The primary's log lines are written in batches: polled, not read at once.
      await until('the replacement logged', () =>
        server?.output().includes('a server process stopped; starting another') ? true : undefined,
      );

      // SIGTERM to the primary: every process drains and exits, then the primary, with 0.
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(children(primary)).toEqual([]);
      for (const pid of replaced) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      await database.close();
    }
  }, 120_000);
});

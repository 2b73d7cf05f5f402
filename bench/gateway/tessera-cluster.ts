/**
 * Child process: Tessera as `pnpm start` runs it with WORKERS=<n> (src/cluster.ts: a primary and n server
 * processes sharing the port), on a fresh PostgreSQL database (TEST_DATABASE_URL, required) and Redis (REDIS_URL,
 * default the local one), pointed at the fake upstream. The bench account and its live key are made here first;
 * then the built server (server/build.ts) is started with the same settings as tessera.ts's. Prints the server's
 * URL, a live key and the primary's pid (the runner counts the CPU of the primary and its processes).
 *   tessera-cluster.ts <upstream url> --workers=<n> [--log-level=<level>] [--env=NAME=value …] [--node-arg=<flag> …]
 * (--node-arg: Node.js's options for the primary, passed on to its processes by cluster.fork; default those of
 * `pnpm start`.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../../server/build';
import { SERVER_NODE_ARGS } from './children';
import { benchKey, benchServices, benchSettings, budgetedKey } from './setup';

const upstreamUrl = process.argv[2];
const workers = process.argv.find((a) => a.startsWith('--workers='))?.split('=')[1];
if (!upstreamUrl || !workers) throw new Error('usage: tessera-cluster.ts <upstream url> --workers=<n>');
if (!process.env.TEST_DATABASE_URL)
  throw new Error('tessera-cluster.ts: TEST_DATABASE_URL (PostgreSQL) is needed');
const redisUrl = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const settings = {
  LOG_LEVEL: process.argv.find((a) => a.startsWith('--log-level='))?.split('=')[1] ?? 'info',
  ...Object.fromEntries(
    process.argv
      .filter((a) => a.startsWith('--env='))
      .map((a) => {
        const [name, ...value] = a.slice('--env='.length).split('=');
        return [name, value.join('=')];
      }),
  ),
};

// The account and key, made in this process on the fresh database (kept open, so not dropped, until exit).
const { services, accountId, databaseUrl } = await benchServices(upstreamUrl, settings);
const key = await benchKey(services, accountId, 'live');
const budgeted = process.argv.includes('--features') ? await budgetedKey(services) : undefined;

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));
const built = mkdtempSync(join(SERVER, '.dist-bench-'));
await buildServer(basename(built));
const nodeArgs = process.argv
  .filter((a) => a.startsWith('--node-arg='))
  .map((a) => a.slice('--node-arg='.length));
const child = spawn(
  process.execPath,
  [...(nodeArgs.length ? nodeArgs : SERVER_NODE_ARGS), join(built, 'main.js')],
  {
    env: {
      ...process.env,
      ...benchSettings(upstreamUrl, settings),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      WORKERS: workers,
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: 'off',
      SEED_DEMO: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let stopping = false;
child.once('exit', (code) => {
  rmSync(built, { recursive: true, force: true });
  if (!stopping) {
    process.stderr.write(`tessera-cluster.ts: the server exited with ${code}\n`);
    process.exit(1);
  }
});

// The primary's "tessera listening" line has the URL; the rest of the output (every process's request log) is
// drained unread.
const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
lines.on('line', (line) => {
  const url = /"url":"(http:[^"]+)".*tessera listening/.exec(line)?.[1];
  if (!url) return;
  lines.close();
  child.stdout?.resume();
  process.stdout.write(`${JSON.stringify({ url, key, budgetedKey: budgeted, pid: String(child.pid) })}\n`);
});

process.on('SIGTERM', () => {
  stopping = true;
  child.kill('SIGTERM');
  child.once('exit', () => {
    rmSync(built, { recursive: true, force: true });
    services.stop().finally(() => process.exit(0));
  });
});

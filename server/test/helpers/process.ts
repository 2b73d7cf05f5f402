import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { START_NODE_ARGS } from '../../build';
import { DATA_DIR_TEMPLATE_ENV } from './database';

/** The run's server build (made by test/server-build.ts, vitest's global setup). */
export const BUILD_ENV = 'TESSERA_TEST_BUILD';

/** The server package's folder, where the processes run. */
export const SERVER = join(import.meta.dirname, '../..');

/**
 * How a process is started: `build`, the run's build as `pnpm start` / `pnpm cli` run it (the default: what
 * operators run, and no transpiling); `sources`, the TypeScript under tsx as `pnpm dev` / `pnpm cli:dev` do.
 */
export type Entry = 'build' | 'sources';

/** Node.js's arguments that run the server (`main`) or the CLI from `entry`, in the server package's folder. */
export function entryArgs(entry: Entry, name: 'main' | 'cli'): string[] {
  if (entry === 'sources') return ['--import', 'tsx', name === 'main' ? 'src/main.ts' : 'src/cli/main.ts'];
  const build = process.env[BUILD_ENV];
  if (!build) throw new Error(`${BUILD_ENV} is not set: the server build is made by test/server-build.ts`);
  return name === 'main' ? [...START_NODE_ARGS, join(build, 'main.js')] : [join(build, 'cli.js')];
}

/**
 * A data directory for a server or CLI process. By default a copy of the run's migrated embedded database
 * (test/database-template.ts): what initdb and the migrations make on a first start, without their seconds.
 * `empty`: an empty folder, for the tests of a first start itself.
 */
export function newDataDir(prefix: string, { empty = false }: { empty?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `tessera-${prefix}-`));
  const template = process.env[DATA_DIR_TEMPLATE_ENV];
  if (!empty && template) cpSync(template, dir, { recursive: true });
  return dir;
}

/**
 * The operators' CLI as a process: on the embedded database of `target.dataDir`, or on the database at
 * `target.databaseUrl` (`env`: more of its environment). Resolves with its parsed JSON output; rejects (with
 * `code`, `stderr`) when it fails.
 */
export async function runCli(
  target: { dataDir: string } | { databaseUrl: string },
  args: string[],
  { entry = 'build', env = {} }: { entry?: Entry; env?: Record<string, string> } = {},
): Promise<unknown> {
  const where =
    'dataDir' in target
      ? { DATA_DIR: target.dataDir, DATABASE_URL: '' }
      : { DATABASE_URL: target.databaseUrl };
  const { stdout } = await promisify(execFile)(process.execPath, [...entryArgs(entry, 'cli'), ...args], {
    cwd: SERVER,
    env: { ...process.env, ...where, LOG_LEVEL: 'silent', ...env },
  });
  return JSON.parse(stdout);
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far, stdout and stderr. */
  output: () => string;
  /** The demo test key printed on a first start, if any. */
  demoKey: string | undefined;
}

const RUNNING = /running at (http:\/\/\S+)/;
const DEMO_KEY = /test key\s+(sk_test_\S+)/;

/** The server's process on the embedded database in `dataDir`, its output collected by `output()`. */
function spawnServer(
  dataDir: string,
  env: Record<string, string>,
  entry: Entry,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, entryArgs(entry, 'main'), {
    cwd: SERVER,
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return { child, output: () => out };
}

/** The real entry point as an operator runs it (see `Entry`), on the embedded database in `dataDir`. */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string>,
  { expectDemoKey = false, entry = 'build' }: { expectDemoKey?: boolean; entry?: Entry } = {},
): Promise<ServerProcess> {
  const { child, output } = spawnServer(dataDir, env, entry);
  const deadline = Date.now() + 45_000;
  while (!RUNNING.test(output()) || (expectDemoKey && !DEMO_KEY.test(output()))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The banner lines follow the "running at" line in the same tick; give the pipe a moment to deliver them.
  await new Promise((r) => setTimeout(r, 300));
  const out = output();
  return { child, url: RUNNING.exec(out)?.[1] ?? '', output, demoKey: DEMO_KEY.exec(out)?.[1] };
}

/** A server process expected to refuse to start (bad configuration): its exit code and everything it wrote. */
export async function failedStart(
  dataDir: string,
  env: Record<string, string>,
  entry: Entry = 'sources',
): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnServer(dataDir, env, entry);
  const code = await exited(child);
  return { code, output: output() };
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

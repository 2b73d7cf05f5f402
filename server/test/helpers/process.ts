import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { START_NODE_ARGS } from './build';

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

/**
 * The real entry point as an operator runs it, on the embedded database in `dataDir`: `src/main.ts` under tsx,
 * or with `built` (a folder made by helpers/build.ts) its `main.js` as `pnpm start` runs it.
 */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string>,
  { expectDemoKey = false, built }: { expectDemoKey?: boolean; built?: string } = {},
): Promise<ServerProcess> {
  const args = built ? [...START_NODE_ARGS, join(built, 'main.js')] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: join(import.meta.dirname, '../..'),
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
  const deadline = Date.now() + 45_000;
  while (!RUNNING.test(out) || (expectDemoKey && !DEMO_KEY.test(out))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The banner lines follow the "running at" line in the same tick; give the pipe a moment to deliver them.
  await new Promise((r) => setTimeout(r, 300));
  return { child, url: RUNNING.exec(out)?.[1] ?? '', output: () => out, demoKey: DEMO_KEY.exec(out)?.[1] };
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

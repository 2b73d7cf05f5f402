/** Tessera instances as separate processes: the production entry point, with the bench's sampler preloaded. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CpuBudget } from './cgroup';

export interface Instance {
  url: string;
  child: ChildProcess;
  sampleFile: string;
}

const MAIN = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
const SAMPLER = new URL('./sampler.ts', import.meta.url).href;

/**
 * With a budget, a shell writes its own pid into the group and then execs node, so the server runs every
 * instruction (start-up included) inside the group, and nothing else ever enters it.
 */
export function startInstance(
  env: Record<string, string>,
  sampleFile: string,
  budget?: CpuBudget,
): Promise<Instance> {
  const node = [process.execPath, '--import', 'tsx', '--import', SAMPLER, MAIN];
  const [command, ...args] = budget
    ? ['/bin/sh', '-c', 'echo $$ > "$1" && shift && exec "$@"', 'sh', budget.procsFile, ...node]
    : node;
  const child = spawn(command as string, args, {
    cwd: fileURLToPath(new URL('../../server/', import.meta.url)),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      LOAD_SAMPLE_FILE: sampleFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('instance did not start within 60 s')), 60_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => {
      out += text;
      const match = /running at (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child, sampleFile });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code} before listening`));
    });
  });
}

export async function waitReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became ready`);
}

/** SIGTERM (graceful), then SIGKILL if it has not exited within 15 s. */
export function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

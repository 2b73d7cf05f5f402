import { Worker, type WorkerOptions } from 'node:worker_threads';
import { RUNNING_BUILT } from './paths';

/** The server's worker threads, by name: their modules, relative to `src/`. build.ts makes `dist/<name>.js` of each. */
export const WORKER_MODULES = {
  'code-analysis-worker': 'modules/code-analysis/worker.ts',
  'count-worker': 'modules/tokenizer/count-worker.ts',
  'json-parse-worker': 'http/json-parse-worker.ts',
  'usage-writer-worker': 'modules/usage/writer-worker.ts',
} as const;

export type WorkerName = keyof typeof WORKER_MODULES;

/**
 * Starts one of the server's worker threads. Built, it runs `dist/<name>.js`, beside the entry file that starts
 * it. From the sources (tsx, vitest) it runs the TypeScript module through tsx-worker.mjs, which registers tsx's
 * loader in the thread first: a worker thread does not inherit the loader of the thread that made it.
 */
export function startWorkerThread(name: WorkerName, options: WorkerOptions): Worker {
  if (RUNNING_BUILT) return new Worker(new URL(`./${name}.js`, import.meta.url), options);
  const source = new URL(`../${WORKER_MODULES[name]}`, import.meta.url);
  return new Worker(new URL('./tsx-worker.mjs', import.meta.url), {
    ...options,
    argv: [...(options.argv ?? []), source.href],
  });
}

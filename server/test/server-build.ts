/**
 * Vitest global setup (vite.config.ts): the server built once a run as `pnpm build` builds it, into a folder of
 * the run's own inside server/ (as dist/ is), for the tests that start the server or the CLI as processes
 * (helpers/process.ts): they run `node main.js` / `node cli.js` as `pnpm start` and `pnpm cli` do, instead of
 * each process transpiling the sources under tsx. Removed at the end of the run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer } from '../build';
import { randomBase62 } from '../src/lib/ids';
import { oncePerRun } from './helpers/once-per-run';
import { BUILD_ENV } from './helpers/process';

export const setup = oncePerRun('server-build', async () => {
  const name = `.dist-test-${randomBase62(8)}`;
  await buildServer(name);
  process.env[BUILD_ENV] = join(import.meta.dirname, '..', name);
  return async () => rmSync(join(import.meta.dirname, '..', name), { recursive: true, force: true });
});

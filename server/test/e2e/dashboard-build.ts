/**
 * Vitest global setup of the browser tests (vite.config.ts): one production build of the dashboard from the
 * current sources a run, that every browser test's server serves (harness.ts `dashboardBuild`), instead of a
 * build a file. Removed at the end of the run.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { oncePerRun } from '../helpers/once-per-run';
import { DASHBOARD_BUILD_ENV, REPO } from './paths';

export const setup = oncePerRun('dashboard-build', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-web-'));
  const vite = join(REPO, 'node_modules', 'vite', 'bin', 'vite.js');
  await promisify(execFile)(
    process.execPath,
    [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'],
    { cwd: REPO },
  );
  process.env[DASHBOARD_BUILD_ENV] = dir;
  return () => rm(dir, { recursive: true, force: true });
});

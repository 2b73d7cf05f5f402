import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const SERVER = join(import.meta.dirname, '../..');

/** Node.js's options as `pnpm start` gives them (server/package.json; why: src/lib/heap.ts). */
export const START_NODE_ARGS = [
  '--max-semi-space-size=32',
  '--min-semi-space-size=16',
  '--no-memory-reducer',
  '--no-allocation-site-pretenuring',
];

/**
 * The server built as `pnpm build` builds it (build.ts), into a folder of this test's own inside server/ (as
 * dist/ is), so that tests running at once neither share nor clobber a build. Returns the folder and its removal.
 */
export async function buildServer(): Promise<{ dir: string; remove: () => void }> {
  const dir = mkdtempSync(join(SERVER, '.dist-test-'));
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'build.ts', `--outdir=${dir}`], {
    cwd: SERVER,
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

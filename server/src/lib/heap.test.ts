import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from './heap';

describe('collectStartupGarbage', () => {
  it('runs a full collection: an object only weakly held is gone afterwards', async () => {
    let target: object | undefined = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = undefined;
    // A WeakRef's target lives at least until the end of the job that made or read it.
    await new Promise((r) => setTimeout(r, 0));
    const ms = collectStartupGarbage();
    expect(typeof ms).toBe('number');
    expect(ref.deref()).toBeUndefined();
    // Once set up, again as cheap as a collection.
    expect(typeof collectStartupGarbage()).toBe('number');
  });

  it('leaves the global scope without a gc function', () => {
    collectStartupGarbage();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});

describe('releaseWorkersYoungGeneration', () => {
  /**
   * A worker's largest new space (MB) while it keeps many objects, in a process with the server's
   * young-generation flags, released first or not.
   */
  function workerNewSpace(release: boolean): number {
    const script = `
      import { Worker } from 'node:worker_threads';
      ${release ? `import { releaseWorkersYoungGeneration } from ${JSON.stringify(`${import.meta.dirname}/heap.ts`)}; releaseWorkersYoungGeneration();` : ''}
      // Many objects that survive a scavenge or two: V8 grows the new space as far as it may.
      const code = "import('node:v8').then((v8) => { let keep = []; let most = 0; for (let r = 0; r < 20; r++) { for (let i = 0; i < 2e5; i++) { keep.push({ i }); if (keep.length > 2e5) keep = keep.slice(1e5); } most = Math.max(most, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size); } process.stdout.write(String(most)); })";
      new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    `;
    const out = execFileSync(
      process.execPath,
      [
        '--max-semi-space-size=64',
        '--min-semi-space-size=16',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8', cwd: import.meta.dirname },
    );
    return Number(out) / 1e6;
  }

  it("lets worker threads made afterwards keep their resourceLimits' young generation", () => {
    // Without it, the process's flags give the worker 16 MB semi-spaces, grown to 64 MB under load.
    expect(workerNewSpace(false)).toBeGreaterThan(60);
    expect(workerNewSpace(true)).toBeLessThan(10);
  });
});

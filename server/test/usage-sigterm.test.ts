import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { usageEvents } from '../src/db/schema';

const dataDir = mkdtempSync(join(tmpdir(), 'tessera-usage-sigterm-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('usage across SIGTERM', () => {
  it('the real process, stopped under load, writes the event of every request it answered', async () => {
    // A long flush interval: whatever is in the database afterwards was written by the shutdown flush.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: join(import.meta.dirname, '..'),
      env: {
        ...process.env,
        DATABASE_URL: '',
        REDIS_URL: '',
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        USAGE_FLUSH_INTERVAL_MS: '600000',
        USAGE_BATCH_SIZE: '100000',
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
    try {
      const deadline = Date.now() + 45_000;
      while (!/running at (http:\/\/\S+)/.test(out) || !/test key\s+(sk_test_\S+)/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`server did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const url = /running at (http:\/\/\S+)/.exec(out)?.[1] ?? '';
      const key = /test key\s+(sk_test_\S+)/.exec(out)?.[1] ?? '';
      let stop = false;
      const clients = Array.from({ length: 6 }, async () => {
        const ids: string[] = [];
        while (!stop) {
          try {
            const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
            await res.arrayBuffer();
            ids.push(String(res.headers.get('x-request-id')));
          } catch {
            break; // refused once the server stopped accepting
          }
        }
        return ids;
      });
      await new Promise((r) => setTimeout(r, 1_000));
      child.kill('SIGTERM');
      const code = await exited(child);
      stop = true;
      const answered = (await Promise.all(clients)).flat();
      expect(code).toBe(0);
      expect(answered.length).toBeGreaterThan(20);

      const database = openDatabase({ dataDir });
      try {
        const rows = await database.db.select({ requestId: usageEvents.requestId }).from(usageEvents);
        const written = new Set(rows.map((r) => r.requestId));
        expect(answered.filter((id) => !written.has(id))).toEqual([]);
        expect(out).not.toContain('usage events dropped');
      } finally {
        await database.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});

import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client';
import { usageEvents } from '../../src/db/schema';
import { exited, newDataDir, startServerProcess } from '../helpers/process';

const dataDir = newDataDir('usage-sigterm');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('usage across SIGTERM', () => {
  it('the real process, stopped under load, writes the event of every request it answered', async () => {
    // A long flush interval: whatever is in the database afterwards was written by the shutdown flush.
    const server = await startServerProcess(
      dataDir,
      { LOG_LEVEL: 'warn', USAGE_FLUSH_INTERVAL_MS: '600000', USAGE_BATCH_SIZE: '100000' },
      { expectDemoKey: true },
    );
    const { child, url } = server;
    const key = server.demoKey ?? '';
    try {
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
        expect(server.output()).not.toContain('usage events dropped');
      } finally {
        await database.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});

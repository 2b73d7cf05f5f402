import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: join(import.meta.dirname, '..'),
    // The CLI uses the embedded database of its DATA_DIR here, whatever the suite runs on.
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout);
}

describe('operators CLI', () => {
  it('creates an enterprise account with custom limits, a key, changes the plan, revokes the key', async () => {
    const account = (await cli(
      'account',
      'create',
      '--email',
      'ops@example.com',
      '--password',
      'a long password',
      '--plan',
      'enterprise',
      '--rpm',
      '5000',
      '--monthly-tokens',
      '123456',
    )) as { id: string; plan: string; limits: unknown };
    expect(account.plan).toBe('enterprise');
    expect(account.limits).toEqual({ requestsPerMinute: 5000, monthlyTokens: 123456 });

    const key = (await cli(
      'key',
      'create',
      '--account',
      'ops@example.com',
      '--name',
      'ci',
      '--kind',
      'live',
    )) as {
      id: string;
      key: string;
    };
    expect(key.key).toMatch(/^sk_live_/);

    const changed = (await cli(
      'account',
      'plan',
      '--account',
      account.id,
      '--plan',
      'pro',
      '--rpm',
      'none',
    )) as {
      plan: string;
      limits: { requestsPerMinute: number };
    };
    expect(changed.plan).toBe('pro');
    expect(changed.limits.requestsPerMinute).toBe(1000);

    const revoked = (await cli('key', 'revoke', '--account', account.id, '--id', key.id)) as {
      revokedAt: string;
    };
    expect(revoked.revokedAt).toBeTruthy();
  }, 60_000);

  it('fails with a message for a bad command or flag', async () => {
    await expect(
      cli('account', 'plan', '--account', 'x@example.com', '--plan', 'gold'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--plan must be one of free, pro, enterprise'),
    });
  }, 30_000);
});

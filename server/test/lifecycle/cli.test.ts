import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../helpers/build';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The CLI from its sources under tsx, or with `built` (helpers/build.ts) as `pnpm cli` runs it. */
async function cliIn(built: string | undefined, ...args: string[]): Promise<unknown> {
  const entry = built ? [join(built, 'cli.js')] : ['--import', 'tsx', 'src/cli/main.ts'];
  const { stdout } = await run(process.execPath, [...entry, ...args], {
    cwd: join(import.meta.dirname, '../..'),
    // The CLI uses the embedded database of its DATA_DIR here, whatever the suite runs on.
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
  });
  return JSON.parse(stdout);
}

const cli = (...args: string[]) => cliIn(undefined, ...args);

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

    const scoped = (await cli(
      'key',
      'create',
      '--account',
      'ops@example.com',
      '--name',
      'reader',
      '--scopes',
      'models,chat',
      '--models',
      'tessera-fast-4k',
      '--expires',
      '2099-01-01T00:00:00Z',
    )) as { scopes: string[]; models: string[]; expiresAt: string; state: string };
    expect(scoped).toMatchObject({
      scopes: ['chat', 'models'],
      models: ['tessera-fast-4k'],
      expiresAt: '2099-01-01T00:00:00.000Z',
      state: 'active',
    });

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

    const rotated = (await cli(
      'key',
      'rotate',
      '--account',
      account.id,
      '--id',
      key.id,
      '--grace',
      '600',
    )) as {
      key: { key: string; kind: string };
      previous: { id: string; state: string; replacedById: string };
    };
    expect(rotated.key.key).toMatch(/^sk_live_/);
    expect(rotated.previous).toMatchObject({ id: key.id, state: 'rotating' });

    const revoked = (await cli('key', 'revoke', '--account', account.id, '--id', key.id)) as {
      revokedAt: string;
    };
    expect(revoked.revokedAt).toBeTruthy();
    // Eight CLI processes, each transpiling the server under tsx (5-10 s apiece on a busy 2-core machine).
  }, 120_000);

  it('fails with a message for a bad command or flag', async () => {
    await expect(
      cli('account', 'plan', '--account', 'x@example.com', '--plan', 'gold'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--plan must be one of free, pro, enterprise'),
    });
    await expect(
      cli('key', 'create', '--account', 'x@example.com', '--name', 'n', '--scopes', 'chat,admin'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--scopes') });
  }, 30_000);
});

describe('operators CLI, built (`pnpm cli`)', () => {
  let build: Awaited<ReturnType<typeof buildServer>> | undefined;
  beforeAll(async () => {
    build = await buildServer();
  }, 60_000);
  afterAll(() => build?.remove());

  it('creates an account and a key from dist/cli.js', async () => {
    const account = (await cliIn(
      build?.dir,
      'account',
      'create',
      '--email',
      'built@example.com',
      '--password',
      'a long password',
      '--plan',
      'pro',
    )) as { id: string; plan: string };
    expect(account.plan).toBe('pro');
    const key = (await cliIn(
      build?.dir,
      'key',
      'create',
      '--account',
      account.id,
      '--name',
      'ops',
      '--kind',
      'test',
    )) as {
      key: string;
    };
    expect(key.key).toMatch(/^sk_test_/);
  }, 60_000);
});

import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { newDataDir, runCli } from '../helpers/process';

const dataDir = newDataDir('cli');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The CLI as `pnpm cli` runs it (the run's build), on the embedded database of `dataDir`. */
const cli = (...args: string[]) => runCli({ dataDir }, args);

describe('operators CLI (built, as `pnpm cli` runs it)', () => {
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
      '--cache-ttl',
      '300',
    )) as { scopes: string[]; models: string[]; expiresAt: string; state: string };
    expect(scoped).toMatchObject({
      scopes: ['chat', 'models'],
      models: ['tessera-fast-4k'],
      expiresAt: '2099-01-01T00:00:00.000Z',
      cacheTtlSeconds: 300,
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
  }, 120_000);
});

describe('operators CLI from its sources (`pnpm cli:dev`, tsx)', () => {
  const sources = (...args: string[]) => runCli({ dataDir }, args, { entry: 'sources' });

  it('fails with a message for a bad command or flag', async () => {
    await expect(
      sources('account', 'plan', '--account', 'x@example.com', '--plan', 'gold'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--plan must be one of free, pro, enterprise'),
    });
    await expect(
      sources('key', 'create', '--account', 'x@example.com', '--name', 'n', '--scopes', 'chat,admin'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--scopes') });
    await expect(
      sources('key', 'create', '--account', 'x@example.com', '--name', 'n', '--cache-ttl', '0'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("--cache-ttl must be a positive integer or 'none'"),
    });
  }, 30_000);
});

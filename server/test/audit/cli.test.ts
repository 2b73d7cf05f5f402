/** The operators' CLI records its changes as the operator; read back through the real server's tRPC. */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/env';
import { createLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { createServices } from '../../src/services';
import { newDataDir, runCli } from '../helpers/process';
import { TrpcTestClient } from '../helpers/trpc-client';
import { auditLog } from './helpers';

const dataDir = newDataDir('audit-cli');
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The CLI (the run's build), on the embedded database of `dataDir` (whatever the suite runs on). */
async function cli(...args: string[]): Promise<Record<string, unknown>> {
  return (await runCli({ dataDir }, args)) as Record<string, unknown>;
}

describe('operators’ CLI and the audit log', () => {
  it('account create, plan, key create/edit/rotate/revoke: one event each, by the operator, no secret', async () => {
    const email = 'ops-audit@example.com';
    const password = 'a long password for ops';
    await cli('account', 'create', '--email', email, '--password', password);
    await cli('account', 'plan', '--account', email, '--plan', 'pro', '--rpm', '500');
    const key = await cli('key', 'create', '--account', email, '--name', 'ci', '--kind', 'live');
    await cli('key', 'edit', '--account', email, '--id', String(key.id), '--name', 'ci-2');
    const rotated = (await cli(
      'key',
      'rotate',
      '--account',
      email,
      '--id',
      String(key.id),
      '--grace',
      '60',
    )) as {
      key: { id: string; key: string };
    };
    await cli('key', 'revoke', '--account', email, '--id', rotated.key.id);

    // The CLI has exited: the server opens the same embedded database.
    const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: '' });
    const services = createServices(env, { logger: createLogger('silent') });
    await services.database.migrate();
    server = await startServer(services, { port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
    const web = new TrpcTestClient(server.url);
    expect((await web.mutation('auth.signIn', { email, password })).status).toBe(200);

    const events = await auditLog(web);
    const byCli = events.filter((e) => e.action !== 'auth.sign_in');
    expect(byCli.map((e) => e.action)).toEqual([
      'key.revoked',
      'key.rotated',
      'key.updated',
      'key.created',
      'plan.changed',
      'account.created',
    ]);
    for (const e of byCli) expect(e.actor).toEqual({ kind: 'operator', userId: null, email: null });
    expect(byCli[2]?.details).toEqual({ changes: { name: { before: 'ci', after: 'ci-2' } } });
    expect(byCli[4]?.details).toMatchObject({
      before: { plan: 'free' },
      after: { plan: 'pro', customRequestsPerMinute: 500 },
    });
    const text = JSON.stringify(events);
    expect(text).not.toContain(String(key.key));
    expect(text).not.toContain(rotated.key.key);
    expect(text).not.toContain(password);
  }, 120_000);
});

/**
 * The audit log is append-only against the server's own database role, not only through its triggers: with the
 * roles split (MIGRATION_DATABASE_URL, `pnpm cli database app-role`), the role the server serves as can neither
 * change the log nor switch its triggers off, while the server works end to end. PostgreSQL only: the embedded
 * database has a single role.
 */
import type { AuditPage, CreatedApiKey } from '@tessera/shared';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRewriteAuditLog, DatabaseSetupError } from '../../src/db/app-role';
import { openDatabase, SHIPPED_MIGRATIONS } from '../../src/db/client';
import { randomBase62 } from '../../src/lib/ids';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { exited, runCli, type ServerProcess, startServerProcess } from '../helpers/process';
import { TrpcTestClient } from '../helpers/trpc-client';
import { PASSWORD } from './helpers';

// Roles are the cluster's, not the database's: one of the run's own, dropped at the end.
const role = `tessera_app_${randomBase62(10).toLowerCase()}`;
// A password with quotes: the role statements quote it themselves.
const rolePassword = `it's "${randomBase62(8)}"`;
let database: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
let ownerUrl = '';
let appUrl = '';
const servers: ServerProcess[] = [];

beforeAll(async () => {
  if (!usingPostgres()) return;
  // Empty: the owner applies every migration, as on a first install.
  database = await openTestDatabase();
  ownerUrl = database.url ?? '';
  const url = new URL(ownerUrl);
  url.username = role;
  url.password = encodeURIComponent(rolePassword);
  appUrl = url.toString();
});

afterAll(async () => {
  for (const server of servers) {
    server.child.kill('SIGKILL');
    await exited(server.child);
  }
  if (!database) return;
  await database.close();
  const admin = postgres(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? '', {
    max: 1,
    onnotice: () => {},
  });
  // The database, and the role's rights in it, are gone: the role can go too.
  await admin.unsafe(`drop role if exists ${role}`);
  await admin.end();
});

/** Each statement as the server's role: its SQLSTATE and message, or 'ok'. */
async function asAppRole(statements: string[]): Promise<string[]> {
  const app = postgres(appUrl, { max: 1, onnotice: () => {} });
  try {
    const outcomes: string[] = [];
    for (const statement of statements)
      outcomes.push(
        await app.unsafe(statement).then(
          () => 'ok',
          (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
        ),
      );
    return outcomes;
  } finally {
    await app.end();
  }
}

const TAMPERING = [
  `update audit_events set action = 'key.revoked'`,
  'delete from audit_events',
  'truncate audit_events',
  'alter table audit_events disable trigger all',
  'alter table audit_events disable trigger audit_events_no_update_delete',
  'drop table audit_events',
];

describe.skipIf(!usingPostgres())('the audit log against the server’s database role (PostgreSQL)', () => {
  it('`pnpm cli database app-role` migrates as the owner and makes the role, with INSERT and SELECT on the log only; again, the same', async () => {
    const env = { MIGRATION_DATABASE_URL: ownerUrl };
    const first = await runCli({ databaseUrl: appUrl }, ['database', 'app-role'], { env });
    const again = await runCli({ databaseUrl: appUrl }, ['database', 'app-role'], { env });
    const expected = { role, auditEvents: ['SELECT', 'INSERT'], canRewriteAuditLog: false };
    expect(first).toEqual(expected);
    expect(again).toEqual(expected);
  });

  it('the server migrates as the owner, serves as the role: sign-up, a key, a chat call, and the log reads back', async () => {
    const server = await startServerProcess('', {
      DATABASE_URL: appUrl,
      MIGRATION_DATABASE_URL: ownerUrl,
      NODE_ENV: 'test',
      SIMULATOR_TOKEN_DELAY_MS: '0',
    });
    servers.push(server);
    expect(server.output()).not.toMatch(/can disable the append-only/);

    const web = new TrpcTestClient(server.url);
    const email = `roles-${randomBase62(8).toLowerCase()}@example.com`;
    expect((await web.mutation('auth.signUp', { email, password: PASSWORD })).status).toBe(200);
    const key = await web.mutation<CreatedApiKey>('keys.create', { name: 'roles', kind: 'test' });
    expect(key.status).toBe(200);
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.data?.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(chat.status).toBe(200);

    const page = await web.query<AuditPage>('audit.list', { first: 100 });
    expect(page.data?.events.map((e) => e.action)).toEqual(['key.created', 'account.created']);
    const ready = await fetch(`${server.url}/readyz`);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      migrations: { applied: SHIPPED_MIGRATIONS },
    });
  });

  it('the role cannot update, delete, truncate, drop the log or disable its triggers; the owner could', async () => {
    const outcomes = await asAppRole(TAMPERING);
    expect(outcomes).toEqual([
      // Refused by the rights, before any trigger runs (the trigger's own message says "append-only").
      '42501: permission denied for table audit_events',
      '42501: permission denied for table audit_events',
      '42501: permission denied for table audit_events',
      '42501: must be owner of table audit_events',
      '42501: must be owner of table audit_events',
      '42501: must be owner of table audit_events',
    ]);

    // What the split takes away: the owner disables the triggers and empties the log (rolled back here).
    const owner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    const tx = await owner.reserve();
    try {
      await tx`begin`;
      await tx.unsafe('alter table audit_events disable trigger all');
      const deleted = await tx.unsafe('delete from audit_events');
      await tx`rollback`;
      expect(deleted.count).toBeGreaterThan(0);
      const [left] = await tx<{ n: number }[]>`select count(*)::int as n from audit_events`;
      expect(left?.n).toBe(deleted.count);
    } finally {
      tx.release();
      await owner.end();
    }
  });

  it("the role empties the search indexes' GIN pending lists through migration 0022's function, owning no index", async () => {
    expect(
      await asAppRole([
        'select search_clean_pending_lists()',
        "select gin_clean_pending_list('search_documents_tsv_idx'::regclass)",
      ]),
    ).toEqual(['ok', '42501: must be owner of index search_documents_tsv_idx']);
  });

  it('the start-up check tells the two roles apart', async () => {
    const owner = openDatabase({ url: ownerUrl, maxConnections: 1 });
    const app = openDatabase({ url: appUrl, maxConnections: 1 });
    try {
      expect(await canRewriteAuditLog(owner.db)).toBe(true);
      expect(await canRewriteAuditLog(app.db)).toBe(false);
    } finally {
      await Promise.all([owner.close(), app.close()]);
    }
  });

  it('an instance given the role alone starts on the migrated database, and records and reads the log', async () => {
    const server = await startServerProcess('', { DATABASE_URL: appUrl, NODE_ENV: 'test' });
    servers.push(server);
    const web = new TrpcTestClient(server.url);
    const email = `roles-only-${randomBase62(8).toLowerCase()}@example.com`;
    expect((await web.mutation('auth.signUp', { email, password: PASSWORD })).status).toBe(200);
    const page = await web.query<AuditPage>('audit.list', { first: 100 });
    expect(page.data?.events.map((e) => e.action)).toEqual(['account.created']);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('an instance given the role alone, finding a migration missing, fails with the fix (a DatabaseSetupError: start-up does not retry it)', async () => {
    const owner = postgres(ownerUrl, { max: 1, onnotice: () => {} });
    const [last] = await owner<{ id: number; hash: string; created_at: string }[]>`
      delete from drizzle.__drizzle_migrations
      where id = (select max(id) from drizzle.__drizzle_migrations) returning *`;
    const app = openDatabase({ url: appUrl, maxConnections: 2 });
    try {
      const failure = await app.migrate().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(DatabaseSetupError);
      expect(String(failure)).toMatch(/may not apply this build's migrations.*MIGRATION_DATABASE_URL/);
    } finally {
      await app.close();
      if (last) await owner`insert into drizzle.__drizzle_migrations ${owner(last)}`;
      await owner.end();
    }
  });
});

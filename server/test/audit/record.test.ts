/** The audit log through the real server: each action recorded once, by the right actor, with no secret. */
import type { AuditEventView, CreatedApiKey } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCookie } from '../../src/lib/cookies';
import { seedDemoIfEmpty } from '../../src/lifecycle';
import { setPlan } from '../../src/modules/accounts';
import { OPERATOR_AUDIT } from '../../src/modules/audit';
import { createKey, revokeKey, rotateKey, updateKey } from '../../src/modules/keys';
import { usingPostgres } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';
import { auditLog, PASSWORD, rawRows, signedUp, UA } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const only = (events: AuditEventView[], action: string) => events.filter((e) => e.action === action);

describe(`audit log recording (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  // First: the demo account is seeded only into an empty database.
  it('removing the demo account’s sample data is recorded once, by the user who did it', async () => {
    const demo = await seedDemoIfEmpty(server.services);
    if (!demo) throw new Error('no demo account');
    const web = new TrpcTestClient(server.url);
    expect((await web.mutation('auth.signIn', { email: demo.email, password: demo.password })).status).toBe(
      200,
    );
    const removed = await web.mutation<{ removedEvents: number }>('demo.removeSampleData');
    expect(removed.data?.removedEvents).toBeGreaterThan(0);
    expect((await web.mutation('demo.removeSampleData')).data).toEqual({ removedEvents: 0 });
    const events = only(await auditLog(web), 'sample_data.removed');
    expect(events).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'user', email: demo.email }),
        details: expect.objectContaining({ removedEvents: removed.data?.removedEvents }),
      }),
    ]);
  });

  it('sign-up, sign-in, a failed sign-in, sign-out: once each, by the account’s user, with address and agent', async () => {
    const { web, email, id, userId } = await signedUp(server);
    const wrong = new TrpcTestClient(server.url);
    const failed = await wrong.mutation('auth.signIn', { email, password: 'not the password at all' });
    expect(failed.status).toBe(401);
    // An unknown email has no account, so no log to write to; it must not fail differently either.
    expect((await wrong.mutation('auth.signIn', { email: `x${email}`, password: PASSWORD })).status).toBe(
      401,
    );

    const again = new TrpcTestClient(server.url);
    const signIn = await again.mutation('auth.signIn', { email, password: PASSWORD }, { 'user-agent': UA });
    expect(signIn.status).toBe(200);
    const sessionToken = readCookie(again.cookie, 'tessera_session');
    expect(sessionToken).toBeTruthy();
    expect((await again.mutation('auth.signOut')).status).toBe(200);

    const events = await auditLog(web);
    expect(events.map((e) => e.action)).toEqual([
      'auth.sign_out',
      'auth.sign_in',
      'auth.sign_in_failed',
      'account.created',
    ]);
    const user = { kind: 'user', userId, email };
    expect(events[0]).toMatchObject({ actor: user, target: { type: 'account', id } });
    expect(events[1]).toMatchObject({
      actor: user,
      userAgent: UA,
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
    // A failed attempt is not by a known user: the account's email, no user id.
    expect(events[2]).toMatchObject({
      actor: { kind: 'user', userId: null, email },
      details: { reason: 'wrong_password' },
    });
    expect(events[3]).toMatchObject({ actor: user, userAgent: UA, details: { email, plan: 'free' } });

    const raw = await rawRows(server, id);
    expect(raw).not.toContain(PASSWORD);
    expect(raw).not.toContain('not the password at all');
    expect(raw).not.toContain(sessionToken);
    expect(raw).not.toMatch(/scrypt|password_hash|token_hash/i);
  });

  it('keys created, edited, rotated and revoked from the dashboard: once each, with before/after, no secret', async () => {
    const { web, email, id, userId } = await signedUp(server);
    const created = await web.mutation<CreatedApiKey>('keys.create', { name: 'svc', requestsPerMinute: 20 });
    const key = created.data;
    if (!key) throw new Error('no key');
    const edited = await web.mutation('keys.update', { id: key.id, name: 'svc-2', scopes: ['chat'] });
    expect(edited.status).toBe(200);
    const rotated = await web.mutation<{ key: CreatedApiKey }>('keys.rotate', {
      id: key.id,
      gracePeriodSeconds: 60,
    });
    const replacement = rotated.data?.key;
    if (!replacement) throw new Error('no replacement');
    expect((await web.mutation('keys.revoke', { id: replacement.id })).status).toBe(200);
    // Revoking again changes nothing, so it records nothing.
    expect((await web.mutation('keys.revoke', { id: replacement.id })).status).toBe(200);

    const events = await auditLog(web);
    const actor = { kind: 'user', userId, email };
    expect(only(events, 'key.created')).toEqual([
      expect.objectContaining({
        actor,
        target: { type: 'api_key', id: key.id },
        details: expect.objectContaining({
          name: 'svc',
          kind: 'test',
          requestsPerMinute: 20,
          last4: key.key.slice(-4),
        }),
      }),
    ]);
    expect(only(events, 'key.updated')).toEqual([
      expect.objectContaining({
        actor,
        target: { type: 'api_key', id: key.id },
        details: {
          changes: {
            name: { before: 'svc', after: 'svc-2' },
            scopes: { before: null, after: ['chat'] },
          },
        },
      }),
    ]);
    expect(only(events, 'key.rotated')).toEqual([
      expect.objectContaining({
        actor,
        target: { type: 'api_key', id: key.id },
        details: expect.objectContaining({ replacementId: replacement.id, gracePeriodSeconds: 60 }),
      }),
    ]);
    expect(only(events, 'key.revoked')).toEqual([
      expect.objectContaining({ actor, target: { type: 'api_key', id: replacement.id } }),
    ]);

    const raw = await rawRows(server, id);
    for (const secret of [key.key, replacement.key]) {
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(secret.slice(8, 30));
    }
    const hashes = await server.services.ctx.db.execute<{ key_hash: string }>(
      sql`select key_hash from api_keys where account_id = ${id}`,
    );
    const hashRows = (Array.isArray(hashes) ? hashes : (hashes as { rows: { key_hash: string }[] }).rows) as {
      key_hash: string;
    }[];
    expect(hashRows.length).toBe(2);
    for (const { key_hash } of hashRows) expect(raw).not.toContain(key_hash);
  });

  it('a failed change writes no event: the event is in the change’s transaction', async () => {
    const { web, id } = await signedUp(server);
    // Refused by the plan (400) and for a missing key (404): nothing changed, nothing recorded.
    const tooFast = await web.mutation('keys.create', { name: 'x', requestsPerMinute: 1_000_000 });
    expect(tooFast.status).toBe(400);
    expect((await web.mutation('keys.revoke', { id: 'key_doesnotexist' })).status).toBe(404);
    expect((await web.mutation('keys.update', { id: 'key_doesnotexist', name: 'y' })).status).toBe(404);
    expect(only(await auditLog(web), 'account.created')).toHaveLength(1);
    expect((await auditLog(web)).length).toBe(1);

    // The event's insert fails (the database refuses an actor kind outside its check): the key, created in the
    // same transaction, must not exist either.
    const countKeys = async () => {
      const result = await server.services.ctx.db.execute<{ n: number }>(
        sql`select count(*)::int as n from api_keys where account_id = ${id}`,
      );
      const rows = (
        Array.isArray(result) ? result : (result as unknown as { rows: { n: number }[] }).rows
      ) as {
        n: number;
      }[];
      return Number(rows[0]?.n);
    };
    expect(await countKeys()).toBe(0);
    const broken = { ...OPERATOR_AUDIT, actor: { kind: 'nobody' as 'operator', userId: null, email: null } };
    await expect(
      createKey({
        ctx: server.services.ctx,
        accountId: id,
        input: { name: 'doomed', kind: 'test' },
        audit: broken,
      }),
    ).rejects.toThrow();
    expect(await countKeys()).toBe(0);
    const key = await createKey({
      ctx: server.services.ctx,
      accountId: id,
      input: { name: 'kept', kind: 'test' },
    });
    await expect(
      revokeKey({ ctx: server.services.ctx, accountId: id, keyId: key.id, audit: broken }),
    ).rejects.toThrow();
    await expect(
      updateKey({
        ctx: server.services.ctx,
        accountId: id,
        input: { id: key.id, name: 'renamed' },
        modelExists: () => true,
        audit: broken,
      }),
    ).rejects.toThrow();
    await expect(
      rotateKey({
        ctx: server.services.ctx,
        accountId: id,
        input: { id: key.id, gracePeriodSeconds: 5 },
        audit: broken,
      }),
    ).rejects.toThrow();
    await expect(
      setPlan({ ctx: server.services.ctx, accountId: id, input: { plan: 'pro' }, audit: broken }),
    ).rejects.toThrow();
    const listed = await web.query<{ id: string; name: string; state: string }[]>('keys.list');
    expect(listed.data).toEqual([expect.objectContaining({ id: key.id, name: 'kept', state: 'active' })]);
    expect((await web.query<{ plan: string }>('auth.account')).data?.plan).toBe('free');
    expect((await auditLog(web)).map((e) => e.action)).toEqual(['account.created']);
  });

  it('operators’ changes (plan, keys) are recorded as the operator', async () => {
    const { web, id } = await signedUp(server);
    await setPlan({
      ctx: server.services.ctx,
      accountId: id,
      input: { plan: 'pro', customRequestsPerMinute: 500 },
      audit: OPERATOR_AUDIT,
    });
    const key = await createKey({
      ctx: server.services.ctx,
      accountId: id,
      input: { name: 'ops', kind: 'live' },
      audit: OPERATOR_AUDIT,
    });
    await revokeKey({ ctx: server.services.ctx, accountId: id, keyId: key.id, audit: OPERATOR_AUDIT });
    const events = await auditLog(web);
    const operator = { kind: 'operator', userId: null, email: null };
    expect(events.map((e) => e.action)).toEqual([
      'key.revoked',
      'key.created',
      'plan.changed',
      'account.created',
    ]);
    expect(events[2]).toMatchObject({
      actor: operator,
      details: {
        before: { plan: 'free', customRequestsPerMinute: null, customMonthlyTokens: null },
        after: { plan: 'pro', customRequestsPerMinute: 500, customMonthlyTokens: null },
      },
    });
    expect(events[1]).toMatchObject({ actor: operator, target: { type: 'api_key', id: key.id } });
    expect(await rawRows(server, id)).not.toContain(key.key);
  });

  it('refuses UPDATE, DELETE and TRUNCATE on audit_events in the database itself', async () => {
    const { id } = await signedUp(server);
    const db = server.services.ctx.db;
    const refusal = (statement: Promise<unknown>) =>
      statement.then(
        () => 'allowed',
        (err: Error & { cause?: Error }) => `${err.message} ${err.cause?.message ?? ''}`,
      );
    expect(
      await refusal(db.execute(sql`update audit_events set action = 'key.created' where account_id = ${id}`)),
    ).toMatch(/append-only: UPDATE/);
    expect(await refusal(db.execute(sql`delete from audit_events where account_id = ${id}`))).toMatch(
      /append-only: DELETE/,
    );
    expect(await refusal(db.execute(sql`truncate audit_events`))).toMatch(/append-only: TRUNCATE/);
    expect(await rawRows(server, id)).toContain('account.created');
  });
});

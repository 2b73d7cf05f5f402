import type { AuditEventView } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database';
import type { TestServer } from '../helpers/server';
import { addMember, signUpOwner, startTeamsServer } from '../helpers/teams';
import { auditLog, rawRows } from './helpers';

function only(events: AuditEventView[], action: string): AuditEventView[] {
  return events.filter((e) => e.action === action);
}

describe(`audit log of members and invitations (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTeamsServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('invitations, joins, role changes, removals and leaving: once each, by whom, without the link', async () => {
    const owner = await signUpOwner(server);
    const developer = await addMember(server, owner, 'developer');
    const leaver = await addMember(server, owner, 'viewer');
    const pending = await owner.client.mutation<{ id: string; token: string }>('teams.invite', {
      role: 'admin',
    });
    expect(pending.status).toBe(200);
    const token = pending.data?.token ?? '';
    expect((await owner.client.mutation('teams.revokeInvitation', { id: pending.data?.id })).status).toBe(
      200,
    );
    const key = await developer.client.mutation<{ id: string }>('keys.create', { name: 'dev', kind: 'live' });
    expect(key.status).toBe(200);
    expect(
      (await owner.client.mutation('teams.changeRole', { userId: developer.userId, role: 'viewer' })).status,
    ).toBe(200);
    // The same role again changes nothing and records nothing.
    expect(
      (await owner.client.mutation('teams.changeRole', { userId: developer.userId, role: 'viewer' })).status,
    ).toBe(200);
    expect((await owner.client.mutation('teams.removeMember', { userId: developer.userId })).status).toBe(
      200,
    );
    expect((await leaver.client.mutation('teams.leave')).status).toBe(200);

    const events = await auditLog(owner.client);
    const ownerActor = { kind: 'user', userId: owner.userId, email: owner.email };
    expect(only(events, 'invitation.created')).toHaveLength(3);
    expect(only(events, 'invitation.created')[0]).toMatchObject({
      actor: ownerActor,
      target: { type: 'invitation', id: pending.data?.id },
      details: { role: 'admin' },
    });
    expect(only(events, 'invitation.revoked')).toEqual([
      expect.objectContaining({ actor: ownerActor, target: { type: 'invitation', id: pending.data?.id } }),
    ]);
    // A join is by the new member, through the invitation.
    expect(only(events, 'member.joined').map((e) => e.actor.userId)).toEqual([
      leaver.userId,
      developer.userId,
    ]);
    expect(only(events, 'member.joined')[1]).toMatchObject({
      actor: { kind: 'user', email: developer.email },
      target: { type: 'user', id: developer.userId },
      details: { role: 'developer' },
    });
    expect(only(events, 'member.role_changed')).toEqual([
      expect.objectContaining({
        actor: ownerActor,
        target: { type: 'user', id: developer.userId },
        details: { email: developer.email, from: 'developer', to: 'viewer' },
      }),
    ]);
    expect(only(events, 'member.removed')).toEqual([
      expect.objectContaining({
        actor: ownerActor,
        target: { type: 'user', id: developer.userId },
        details: { email: developer.email, role: 'viewer', keysRevoked: 1 },
      }),
    ]);
    expect(only(events, 'member.left')).toEqual([
      expect.objectContaining({
        actor: { kind: 'user', userId: leaver.userId, email: leaver.email },
        details: expect.objectContaining({ email: leaver.email, role: 'viewer' }),
      }),
    ]);
    // The invitation links are credentials: never in the log.
    const raw = await rawRows(server, owner.accountId);
    expect(raw).not.toContain(token);
  });

  it('owners and admins read the log; developers and viewers are refused, naming the role needed', async () => {
    const owner = await signUpOwner(server);
    const admin = await addMember(server, owner, 'admin');
    const developer = await addMember(server, owner, 'developer');
    const viewer = await addMember(server, owner, 'viewer');
    expect((await admin.client.query('audit.list', {})).status).toBe(200);
    for (const member of [developer, viewer]) {
      const refused = await member.client.query<unknown>('audit.list', {});
      expect(refused.status).toBe(403);
      expect(JSON.stringify(refused.error)).toContain('needs the admin role or higher');
      const exported = await fetch(`${server.url}/api/audit/export?format=csv`, {
        headers: { cookie: member.client.cookie ?? '' },
      });
      expect(exported.status).toBe(403);
    }
  });
});

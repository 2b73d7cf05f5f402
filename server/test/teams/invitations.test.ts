import type { CreatedInvitation, InvitationPreview, InvitationView, SessionView } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server';
import { type SignedIn, signUpOwner, startTeamsServer } from '../helpers/teams';
import { TrpcTestClient } from '../helpers/trpc-client';

describe('invitations by link', () => {
  let server: TestServer;
  let owner: SignedIn;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };

  beforeAll(async () => {
    server = await startTeamsServer({ clock });
    owner = await signUpOwner(server);
  });
  afterAll(async () => {
    await server.close();
  });

  async function invite(input: Record<string, unknown> = { role: 'developer' }): Promise<CreatedInvitation> {
    const res = await owner.client.mutation<CreatedInvitation>('teams.invite', input);
    expect(res.status).toBe(200);
    if (!res.data) throw new Error('no invitation');
    return res.data;
  }

  const newUser = (name: string) => ({
    email: `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: 'a long enough password 7',
  });

  it('shows the link once, stores only its hash, defaults to 7 days, and lists it as pending', async () => {
    const created = await invite();
    expect(created.path).toBe(`/invite/${created.token}`);
    expect(created.token.length).toBeGreaterThanOrEqual(40);
    const days = (Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 2);
    expect(created.invitedBy).toBe(owner.email);
    const stored = await server.services.ctx.db.execute(
      sql`select * from invitations where id = ${created.id}`,
    );
    const text = JSON.stringify(stored);
    expect(text).not.toContain(created.token);
    const pending = await owner.client.query<InvitationView[]>('teams.invitations');
    const listed = pending.data?.find((i) => i.id === created.id);
    expect(listed).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it('refuses an expiry over 30 days or a role that does not exist, with a 400', async () => {
    const tooLong = await owner.client.mutation('teams.invite', { role: 'viewer', expiresInDays: 31 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.error?.data.fieldErrors?.expiresInDays?.[0]).toMatch(/at most 30/);
    const badRole = await owner.client.mutation('teams.invite', { role: 'superuser' });
    expect(badRole.status).toBe(400);
    expect(badRole.error?.data.fieldErrors?.role?.[0]).toMatch(/owner, admin, developer, viewer/);
  });

  it('sign-up through the link creates the user and that membership only; the link is then used up', async () => {
    const created = await invite({ role: 'viewer', expiresInDays: 3 });
    const anonymous = new TrpcTestClient(server.url);
    const preview = await anonymous.query<InvitationPreview>('teams.invitation', { token: created.token });
    expect(preview.data).toMatchObject({ role: 'viewer', invitedBy: owner.email });
    const guest = new TrpcTestClient(server.url);
    const signUp = await guest.mutation<{ id: string; role: string }>('auth.signUp', {
      ...newUser('guest'),
      invitation: created.token,
    });
    expect(signUp.status).toBe(200);
    expect(signUp.data).toMatchObject({ id: owner.accountId, role: 'viewer' });
    const session = await guest.query<SessionView>('auth.session');
    // No organisation of their own: the invited one only.
    expect(session.data?.organisations).toEqual([
      expect.objectContaining({ id: owner.accountId, role: 'viewer' }),
    ]);
    // Reused: refused, for a new user and an existing one alike, and no user is created.
    const reuse = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      ...newUser('again'),
      invitation: created.token,
    });
    expect(reuse.status).toBe(409);
    expect(reuse.error?.message).toMatch(/already used/);
    const other = await signUpOwner(server, 'other');
    const accept = await other.client.mutation('teams.accept', { token: created.token });
    expect(accept.status).toBe(409);
    const pending = await owner.client.query<InvitationView[]>('teams.invitations');
    expect(pending.data?.some((i) => i.id === created.id)).toBe(false);
  });

  it('a signed-in user of another organisation accepts, and the switcher then lists both', async () => {
    const other = await signUpOwner(server, 'member-elsewhere');
    const created = await invite({ role: 'admin' });
    const accept = await other.client.mutation<{ accountId: string }>('teams.accept', {
      token: created.token,
    });
    expect(accept.status).toBe(200);
    const session = await other.client.query<SessionView>('auth.session');
    expect(session.data?.organisation).toMatchObject({ id: owner.accountId, role: 'admin' });
    expect(session.data?.organisations.map((o) => o.id).sort()).toEqual(
      [owner.accountId, other.accountId].sort(),
    );
    // Switching back to their own organisation: owner there.
    const back = await other.client.mutation<SessionView>('teams.switch', { accountId: other.accountId });
    expect(back.data?.organisation).toMatchObject({ id: other.accountId, role: 'owner' });
    expect((await other.client.query<{ id: string }>('auth.account')).data?.id).toBe(other.accountId);
    // An organisation they do not belong to: not found, the session stays where it was.
    const stranger = await signUpOwner(server, 'stranger');
    const denied = await other.client.mutation('teams.switch', { accountId: stranger.accountId });
    expect(denied.status).toBe(404);
    expect((await other.client.query<{ id: string }>('auth.account')).data?.id).toBe(other.accountId);
    // Accepting twice into the same organisation is refused without using the second link.
    const second = await invite({ role: 'viewer' });
    const twice = await other.client.mutation('teams.accept', { token: second.token });
    expect(twice.status).toBe(409);
    expect(twice.error?.message).toMatch(/already a member/);
  });

  it('a revoked link is refused (and leaves the pending list)', async () => {
    const created = await invite();
    const revoke = await owner.client.mutation('teams.revokeInvitation', { id: created.id });
    expect(revoke.status).toBe(200);
    const preview = await new TrpcTestClient(server.url).query('teams.invitation', { token: created.token });
    expect(preview.status).toBe(409);
    expect(preview.error?.message).toMatch(/revoked/);
    const signUp = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      ...newUser('late'),
      invitation: created.token,
    });
    expect(signUp.status).toBe(409);
    expect(signUp.error?.message).toMatch(/revoked/);
    const pending = await owner.client.query<InvitationView[]>('teams.invitations');
    expect(pending.data?.some((i) => i.id === created.id)).toBe(false);
  });

  it('an expired link is refused; an unknown one is a 404', async () => {
    const created = await invite({ role: 'developer', expiresInDays: 1 });
    offsetMs = 86_400_000 + 60_000;
    try {
      const signUp = await new TrpcTestClient(server.url).mutation('auth.signUp', {
        ...newUser('slow'),
        invitation: created.token,
      });
      expect(signUp.status).toBe(409);
      expect(signUp.error?.message).toMatch(/expired/);
      const pending = await owner.client.query<InvitationView[]>('teams.invitations');
      expect(pending.data?.some((i) => i.id === created.id)).toBe(false);
    } finally {
      offsetMs = 0;
    }
    const unknown = await new TrpcTestClient(server.url).query('teams.invitation', { token: 'x'.repeat(43) });
    expect(unknown.status).toBe(404);
    expect(unknown.error?.message).toMatch(/not valid/);
  });

  it("an organisation's invitation cannot be revoked by another organisation's owner", async () => {
    const created = await invite();
    const other = await signUpOwner(server, 'intruder');
    const res = await other.client.mutation('teams.revokeInvitation', { id: created.id });
    expect(res.status).toBe(404);
    const pending = await owner.client.query<InvitationView[]>('teams.invitations');
    expect(pending.data?.some((i) => i.id === created.id)).toBe(true);
  });
});

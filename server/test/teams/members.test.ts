import type { CreatedApiKey, MemberView } from '@tessera/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYGROUND_CHAT_PATH } from '../../src/rest/playground';
import { gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';
import { addMember, type SignedIn, signUpOwner, startTeamsServer } from '../helpers/teams';

describe('members: roles, removal, key transfer, last owner, isolation', () => {
  let server: TestServer;
  let owner: SignedIn;

  beforeAll(async () => {
    server = await startTeamsServer();
    owner = await signUpOwner(server);
  });
  afterAll(async () => {
    await server.close();
  });

  const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

  async function createKey(member: SignedIn, kind: 'live' | 'test'): Promise<CreatedApiKey> {
    const res = await member.client.mutation<CreatedApiKey>('keys.create', {
      name: `${kind} of ${member.email}`,
      kind,
    });
    expect(res.status).toBe(200);
    if (!res.data) throw new Error('no key');
    return res.data;
  }

  async function members(): Promise<MemberView[]> {
    return (await owner.client.query<MemberView[]>('teams.members')).data ?? [];
  }

  it('lists members with their roles and live key counts; the owner changes a role', async () => {
    const dev = await addMember(server, owner, 'developer');
    await createKey(dev, 'test');
    await createKey(dev, 'test');
    await createKey(dev, 'live');
    const listed = (await members()).find((m) => m.userId === dev.userId);
    // The Members page's "Live keys" column: test keys are counted apart, not as live ones.
    expect(listed).toMatchObject({ email: dev.email, role: 'developer', liveKeys: 1, testKeys: 2 });
    const viaGraphql = await gql<{ members: { email: string; liveKeys: number; testKeys: number }[] }>(
      server,
      { cookie: owner.client.cookie ?? '' },
      '{ members { email liveKeys testKeys } }',
    );
    expect(viaGraphql.data?.members.find((m) => m.email === dev.email)).toEqual({
      email: dev.email,
      liveKeys: 1,
      testKeys: 2,
    });
    const change = await owner.client.mutation('teams.changeRole', { userId: dev.userId, role: 'viewer' });
    expect(change.status).toBe(200);
    expect((await members()).find((m) => m.userId === dev.userId)?.role).toBe('viewer');
    // The demotion holds from the very next call of the member's existing session.
    const refused = await dev.client.mutation('keys.create', { name: 'after demotion', kind: 'test' });
    expect(refused.status).toBe(403);
  });

  it("removing a member revokes the keys they own: their key's next SDK call is 401; their session loses the organisation", async () => {
    const dev = await addMember(server, owner, 'developer');
    const live = await createKey(dev, 'live');
    const test = await createKey(dev, 'test');
    const ownerKey = await createKey(owner, 'test');
    expect((await sdk(test.key).models.list()).data.length).toBeGreaterThan(0);

    const removed = await owner.client.mutation<{ revokedKeys: number; transferredKeys: number }>(
      'teams.removeMember',
      {
        userId: dev.userId,
      },
    );
    expect(removed.data).toEqual({ revokedKeys: 2, transferredKeys: 0 });
    for (const key of [live, test]) {
      const err = await sdk(key.key)
        .models.list()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    }
    // Other members' keys are untouched.
    expect((await sdk(ownerKey.key).models.list()).data.length).toBeGreaterThan(0);

    // tRPC, GraphQL and the playground refuse the removed member's session at once.
    const keys = await dev.client.query('keys.list');
    expect(keys.status).toBe(403);
    expect(keys.error?.message).toMatch(/not a member of this organisation/);
    const read = await gql(server, { cookie: dev.client.cookie ?? '' }, '{ apiKeys { id } }');
    expect(read.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(read.data).toBeNull();
    const play = await fetch(`${server.url}${PLAYGROUND_CHAT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1', cookie: dev.client.cookie ?? '' },
      body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(play.status).toBe(403);
    // The session itself stays valid: its user now belongs to no organisation.
    const session = await dev.client.query<{ organisation: unknown; organisations: unknown[] }>(
      'auth.session',
    );
    expect(session.data).toMatchObject({ organisation: null, organisations: [] });
    expect((await members()).some((m) => m.userId === dev.userId)).toBe(false);
  });

  it('removing a member with a transfer moves their keys to the named member; the keys keep working', async () => {
    const leaving = await addMember(server, owner, 'developer');
    const heir = await addMember(server, owner, 'developer');
    const live = await createKey(leaving, 'live');
    const res = await owner.client.mutation<{ revokedKeys: number; transferredKeys: number }>(
      'teams.removeMember',
      {
        userId: leaving.userId,
        transferKeysTo: heir.userId,
      },
    );
    expect(res.data).toEqual({ revokedKeys: 0, transferredKeys: 1 });
    expect((await sdk(live.key).models.list()).data.length).toBeGreaterThan(0);
    const keys = await heir.client.query<{ id: string; ownerUserId: string }[]>('keys.list');
    expect(keys.data?.find((k) => k.id === live.id)?.ownerUserId).toBe(heir.userId);
    // The heir, a developer, may now change that live key: it is theirs.
    expect((await heir.client.mutation('keys.update', { id: live.id, name: 'inherited' })).status).toBe(200);
  });

  it('refuses a transfer to someone who is not a member, removing nobody', async () => {
    const leaving = await addMember(server, owner, 'developer');
    const stranger = await signUpOwner(server, 'stranger');
    const res = await owner.client.mutation('teams.removeMember', {
      userId: leaving.userId,
      transferKeysTo: stranger.userId,
    });
    expect(res.status).toBe(400);
    expect(res.error?.message).toMatch(/No member/);
    expect((await members()).some((m) => m.userId === leaving.userId)).toBe(true);
  });

  it('the last owner cannot be demoted, removed or leave; with a second owner they can', async () => {
    const solo = await signUpOwner(server, 'solo');
    const demote = await solo.client.mutation('teams.changeRole', { userId: solo.userId, role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.error?.message).toMatch(/last owner/);
    const remove = await solo.client.mutation('teams.removeMember', { userId: solo.userId });
    expect(remove.status).toBe(409);
    const leave = await solo.client.mutation('teams.leave');
    expect(leave.status).toBe(409);
    expect(leave.error?.message).toMatch(/last owner cannot leave/);

    const second = await addMember(server, solo, 'owner');
    expect(
      (await solo.client.mutation('teams.changeRole', { userId: solo.userId, role: 'admin' })).status,
    ).toBe(200);
    // Now `second` is the last owner: the former owner (an admin now) cannot demote them, nor can they.
    expect(
      (await second.client.mutation('teams.changeRole', { userId: second.userId, role: 'viewer' })).status,
    ).toBe(409);
    expect((await solo.client.mutation('teams.leave')).status).toBe(200);
  });

  it('two owners demoting each other at once: exactly one succeeds, the organisation keeps an owner', async () => {
    const first = await signUpOwner(server, 'race');
    const second = await addMember(server, first, 'owner');
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all([
        first.client.mutation('teams.changeRole', { userId: second.userId, role: 'admin' }),
        second.client.mutation('teams.changeRole', { userId: first.userId, role: 'admin' }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      // One demotion passes; the other is refused: by the last-owner check (409), or, if the winner's demotion
      // of its caller landed first, by the caller no longer being an owner (403).
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const listed =
        (await first.client.query<MemberView[]>('teams.members')).data ??
        (await second.client.query<MemberView[]>('teams.members')).data ??
        [];
      expect(listed.filter((m) => m.role === 'owner')).toHaveLength(1);
      // Back to two owners for the next round.
      const owner = listed.find((m) => m.role === 'owner');
      const ownerClient = owner?.userId === first.userId ? first.client : second.client;
      const other = owner?.userId === first.userId ? second : first;
      expect(
        (await ownerClient.mutation('teams.changeRole', { userId: other.userId, role: 'owner' })).status,
      ).toBe(200);
    }
  });

  it("tenant isolation with roles: an admin of one organisation never reads or changes another's", async () => {
    const other = await signUpOwner(server, 'org-b');
    const otherDev = await addMember(server, other, 'developer');
    const otherKey = await createKey(other, 'test');
    const admin = await addMember(server, owner, 'admin');

    // Another organisation's key, member and invitation ids are "not found" here.
    for (const [path, input] of [
      ['keys.revoke', { id: otherKey.id }],
      ['keys.update', { id: otherKey.id, name: 'taken over' }],
      ['keys.rotate', { id: otherKey.id, gracePeriodSeconds: 0 }],
    ] as const) {
      const res = await admin.client.mutation(path, input);
      expect(res.status, path).toBe(404);
    }
    for (const [path, input] of [
      ['teams.changeRole', { userId: otherDev.userId, role: 'viewer' }],
      ['teams.removeMember', { userId: otherDev.userId }],
    ] as const) {
      expect((await owner.client.mutation(path, input)).status, path).toBe(404);
    }
    expect((await sdk(otherKey.key).models.list()).data.length).toBeGreaterThan(0);
    const otherMembers = await other.client.query<MemberView[]>('teams.members');
    expect(otherMembers.data?.find((m) => m.userId === otherDev.userId)?.role).toBe('developer');

    // Lists show only the session's organisation.
    const adminKeys = await admin.client.query<{ id: string }[]>('keys.list');
    expect(adminKeys.data?.some((k) => k.id === otherKey.id)).toBe(false);
    const adminMembers = await admin.client.query<MemberView[]>('teams.members');
    expect(adminMembers.data?.some((m) => m.userId === otherDev.userId || m.userId === other.userId)).toBe(
      false,
    );
    const read = await gql<{ members: { email: string }[]; apiKeys: { id: string }[] }>(
      server,
      { cookie: admin.client.cookie ?? '' },
      '{ members { email } apiKeys { id } }',
    );
    expect(read.data?.members.some((m) => m.email === other.email)).toBe(false);
    expect(read.data?.apiKeys.some((k) => k.id === otherKey.id)).toBe(false);
    // Switching into an organisation one does not belong to is refused.
    expect((await admin.client.mutation('teams.switch', { accountId: other.accountId })).status).toBe(404);
  });
});

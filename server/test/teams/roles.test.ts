import type { CreatedApiKey, Role } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYGROUND_CHAT_PATH } from '../../src/rest/playground';
import { gql } from '../helpers/graphql';
import type { TestServer } from '../helpers/server';
import { addMember, type SignedIn, signUpOwner, startTeamsServer } from '../helpers/teams';
import type { TrpcResult } from '../helpers/trpc-client';

/**
 * Each role × each mutation, through tRPC over HTTP, plus the reads every role has, GraphQL's members query
 * and the playground (REST with the session). Refusals are FORBIDDEN naming the role needed.
 */
describe('roles: every transport asks the one permission table', () => {
  let server: TestServer;
  let owner: SignedIn;
  const members = {} as Record<Role, SignedIn>;

  beforeAll(async () => {
    server = await startTeamsServer();
    owner = await signUpOwner(server);
    members.owner = owner;
    for (const role of ['admin', 'developer', 'viewer'] as const)
      members[role] = await addMember(server, owner, role);
  });
  afterAll(async () => {
    await server.close();
  });

  async function ownerKey(kind: 'live' | 'test'): Promise<CreatedApiKey> {
    const res = await owner.client.mutation<CreatedApiKey>('keys.create', { name: `owner ${kind}`, kind });
    expect(res.status).toBe(200);
    if (!res.data) throw new Error('no key');
    return res.data;
  }

  function expectRefused(res: TrpcResult<unknown>, needed: RegExp): void {
    expect(res.status).toBe(403);
    expect(res.error?.data.code).toBe('FORBIDDEN');
    expect(res.error?.message).toMatch(needed);
  }

  const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];
  const allowed = (list: Role[], role: Role) => list.includes(role);

  it.each(ROLES)('%s: creating keys (test and live)', async (role) => {
    const { client, userId } = members[role];
    for (const kind of ['test', 'live'] as const) {
      const res = await client.mutation<CreatedApiKey>('keys.create', { name: `${role} ${kind}`, kind });
      if (role === 'viewer')
        expectRefused(res, /Creating API keys needs the developer role or higher; your role here is viewer/);
      else {
        expect(res.status).toBe(200);
        expect(res.data?.ownerUserId).toBe(userId);
      }
    }
  });

  it.each(ROLES)("%s: editing, rotating and revoking the owner's test key", async (role) => {
    const { client } = members[role];
    const ok = allowed(['owner', 'admin', 'developer'], role);
    const key = await ownerKey('test');
    const update = await client.mutation('keys.update', { id: key.id, name: 'renamed' });
    const rotate = await client.mutation('keys.rotate', { id: key.id, gracePeriodSeconds: 60 });
    const revoke = await client.mutation('keys.revoke', { id: key.id });
    for (const res of [update, rotate, revoke]) {
      if (ok) expect(res.status).toBe(200);
      else expectRefused(res, /Changing test keys needs the developer role or higher/);
    }
  });

  it.each(ROLES)("%s: editing, rotating and revoking the owner's live key", async (role) => {
    const { client } = members[role];
    const ok = allowed(['owner', 'admin'], role);
    const key = await ownerKey('live');
    const update = await client.mutation('keys.update', { id: key.id, name: 'renamed' });
    const rotate = await client.mutation('keys.rotate', { id: key.id, gracePeriodSeconds: 60 });
    const revoke = await client.mutation('keys.revoke', { id: key.id });
    for (const res of [update, rotate, revoke]) {
      if (ok) expect(res.status).toBe(200);
      else expectRefused(res, /Changing another member's live keys needs the admin role or higher/);
    }
    // The refusals changed nothing.
    const list = await owner.client.query<{ id: string; name: string; state: string }[]>('keys.list');
    const after = list.data?.find((k) => k.id === key.id);
    if (!ok) expect(after).toMatchObject({ name: 'owner live', state: 'active' });
  });

  it('a developer changes their own live key (and its rotated replacement stays theirs)', async () => {
    const dev = members.developer;
    const created = await dev.client.mutation<CreatedApiKey>('keys.create', {
      name: 'dev live',
      kind: 'live',
    });
    const id = created.data?.id;
    expect((await dev.client.mutation('keys.update', { id, name: 'dev live 2' })).status).toBe(200);
    const rotated = await dev.client.mutation<{ key: CreatedApiKey }>('keys.rotate', {
      id,
      gracePeriodSeconds: 0,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.data?.key.ownerUserId).toBe(dev.userId);
    expect((await dev.client.mutation('keys.revoke', { id: rotated.data?.key.id })).status).toBe(200);
    // ...but another developer's live key is refused: ownership, not the role alone.
    const other = await addMember(server, owner, 'developer');
    const theirs = await other.client.mutation<CreatedApiKey>('keys.create', {
      name: 'other live',
      kind: 'live',
    });
    expectRefused(
      await dev.client.mutation('keys.revoke', { id: theirs.data?.id }),
      /another member's live keys/,
    );
  });

  it.each(ROLES)('%s: members, roles and invitations', async (role) => {
    const { client } = members[role];
    const ok = role === 'owner';
    const target = await addMember(server, owner, 'viewer');
    const results = [
      await client.mutation('teams.invite', { role: 'developer' }),
      await client.mutation('teams.changeRole', { userId: target.userId, role: 'developer' }),
      await client.mutation('teams.removeMember', { userId: target.userId }),
    ];
    for (const res of results) {
      if (ok) expect(res.status).toBe(200);
      else
        expectRefused(
          res,
          new RegExp(
            `Managing members, roles and invitations needs the owner role; your role here is ${role}`,
          ),
        );
    }
    const list = await client.query('teams.members');
    const invitations = await client.query('teams.invitations');
    for (const res of [list, invitations]) {
      if (allowed(['owner', 'admin'], role)) expect(res.status).toBe(200);
      else expectRefused(res, /Listing members and invitations needs the admin role or higher/);
    }
  });

  it.each(ROLES)('%s: removing sample data, and reading the dashboard', async (role) => {
    const { client } = members[role];
    const sample = await client.mutation('demo.removeSampleData');
    if (allowed(['owner', 'admin'], role)) expect(sample.status).toBe(200);
    else expectRefused(sample, /Removing the sample data needs the admin role or higher/);
    // Every role reads: keys (masked), models, plan, its own session.
    for (const path of ['keys.list', 'models.list', 'plan.status', 'auth.account']) {
      expect((await client.query(path)).status, path).toBe(200);
    }
    const keys = await client.query<{ masked: string; key?: string }[]>('keys.list');
    expect(keys.data?.length).toBeGreaterThan(0);
    for (const k of keys.data ?? []) expect(k.key).toBeUndefined();
  });

  it.each(ROLES)('%s: GraphQL reads, and members for owners and admins only', async (role) => {
    const cookie = members[role].client.cookie ?? '';
    const read = await gql<{ viewer: { role: string; account: { id: string } }; apiKeys: unknown[] }>(
      server,
      { cookie },
      '{ viewer { role account { id } } apiKeys { id ownerUserId } models { id } }',
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.viewer.role).toBe(role.toUpperCase());
    expect(read.data?.viewer.account.id).toBe(owner.accountId);
    const list = await gql<{ members: { email: string; role: string }[] }>(
      server,
      { cookie },
      '{ members { email role } }',
    );
    if (allowed(['owner', 'admin'], role)) {
      expect(list.errors).toBeUndefined();
      expect(list.data?.members.find((m) => m.email === owner.email)?.role).toBe('OWNER');
    } else {
      expect(list.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(list.errors?.[0]?.message).toMatch(/needs the admin role or higher/);
    }
  });

  it('GraphQL with an API key reads as before (no role) and may not list members', async () => {
    const key = await ownerKey('test');
    const read = await gql<{ viewer: { role: string | null } }>(
      server,
      { key: key.key },
      '{ viewer { role } apiKeys { id } }',
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.viewer.role).toBeNull();
    const list = await gql(server, { key: key.key }, '{ members { email } }');
    expect(list.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it.each(ROLES)('%s: the playground (REST with the session)', async (role) => {
    const res = await fetch(`${server.url}${PLAYGROUND_CHAT_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-tessera-csrf': '1',
        cookie: members[role].client.cookie ?? '',
      },
      body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'hi' }] }),
    });
    if (role === 'viewer') {
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error: { code: string; type: string; message: string } };
      expect(body.error.code).toBe('permission_denied');
      expect(body.error.message).toMatch(
        /Using the playground needs the developer role or higher; your role here is viewer/,
      );
    } else {
      expect(res.status).toBe(200);
    }
  });
});

import type { Role, SessionView } from '@tessera/shared';
import { expect } from 'vitest';
import { randomBase62 } from '../../src/lib/ids';
import { startTestServer, type TestServer, type TestServerOptions, testAuthThrottle } from './server';
import { TrpcTestClient } from './trpc-client';

/** A server whose sign-up throttle lets a test file make the dozens of users a role matrix needs. */
export function startTeamsServer(options: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({
    ...options,
    config: {
      authThrottle: testAuthThrottle({
        signUpPerAddress: { kind: 'window', limit: 10_000, windowMs: 3_600_000 },
      }),
      ...options.config,
    },
  });
}

export interface SignedIn {
  client: TrpcTestClient;
  email: string;
  password: string;
  userId: string;
  accountId: string;
}

function newCredentials(prefix: string) {
  return {
    email: `${prefix}-${randomBase62(8).toLowerCase()}@example.com`,
    password: `pw-${randomBase62(16)}`,
  };
}

async function whoAmI(client: TrpcTestClient): Promise<SessionView> {
  const session = await client.query<SessionView>('auth.session');
  expect(session.status).toBe(200);
  if (!session.data) throw new Error('no session');
  return session.data;
}

/** Signs up through the dashboard's tRPC: a user, an organisation of one, an owner membership. */
export async function signUpOwner(server: TestServer, prefix = 'owner'): Promise<SignedIn> {
  const client = new TrpcTestClient(server.url);
  const creds = newCredentials(prefix);
  const res = await client.mutation<{ id: string }>('auth.signUp', creds);
  expect(res.status).toBe(200);
  const me = await whoAmI(client);
  return { client, ...creds, userId: me.user.id, accountId: res.data?.id ?? '' };
}

/** The owner invites; a new user signs up through the link and is then a member with `role`. */
export async function addMember(server: TestServer, owner: SignedIn, role: Role): Promise<SignedIn> {
  const invite = await owner.client.mutation<{ token: string }>('teams.invite', { role });
  expect(invite.status).toBe(200);
  const client = new TrpcTestClient(server.url);
  const creds = newCredentials(role);
  const res = await client.mutation('auth.signUp', { ...creds, invitation: invite.data?.token });
  expect(res.status).toBe(200);
  const me = await whoAmI(client);
  expect(me.organisation?.role).toBe(role);
  return { client, ...creds, userId: me.user.id, accountId: owner.accountId };
}

/** Recent errors grouped when identical, and usage narrowed to one endpoint, through GraphQL. */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql, sessionCookie, settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const GROUPS = /* GraphQL */ `
  query Groups($keyId: ID, $method: String, $path: String) {
    usage(period: LAST_1H, keyId: $keyId, method: $method, path: $path) {
      summary { totalRequests }
      errorGroups(first: 10) {
        truncated
        groups { status code message method path maskedKey count lastSeen lastRequestId }
      }
      recentErrors(first: 100) { edges { node { requestId path } } }
    }
  }
`;

interface GroupsData {
  usage: {
    summary: { totalRequests: number };
    errorGroups: {
      truncated: boolean;
      groups: {
        status: number;
        code: string | null;
        message: string | null;
        method: string;
        path: string;
        maskedKey: string | null;
        count: number;
        lastSeen: string;
        lastRequestId: string;
      }[];
    };
    recentErrors: { edges: { node: { requestId: string; path: string } }[] };
  };
}

async function call(key: string, path: string, body?: unknown): Promise<string> {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  await res.arrayBuffer();
  return res.headers.get('x-request-id') ?? '';
}

describe('GraphQL error groups', () => {
  it('counts identical errors per key and endpoint, latest first, and narrows to one endpoint or key', async () => {
    const account = await createAccount(server);
    const a = await createKey(server, account.id, 'test', 'a');
    const b = await createKey(server, account.id, 'test', 'b');
    const stranger = await createAccount(server);
    const strangerKey = await createKey(server, stranger.id, 'test', 's');

    for (let i = 0; i < 3; i++) await call(a.key, '/v1/models/no-such-model');
    for (let i = 0; i < 2; i++) await call(b.key, '/v1/models/no-such-model');
    await call(a.key, '/v1/models');
    const lastChat = await call(a.key, '/v1/chat/completions', { model: 'tessera-fast-4k' });
    await call(strangerKey.key, '/v1/models/no-such-model');
    const written = async () =>
      Number(
        (
          await server.services.ctx.db
            .select({ n: count() })
            .from(usageEvents)
            .where(eq(usageEvents.accountId, account.id))
        )[0]?.n ?? 0,
      );
    await settleUsage(server, written, 7);

    const cookie = await sessionCookie(server, account.id);
    const all = await gql<GroupsData>(server, { cookie }, GROUPS);
    expect(all.errors).toBeUndefined();
    const groups = all.data?.usage.errorGroups.groups ?? [];
    expect(all.data?.usage.errorGroups.truncated).toBe(false);
    expect(groups.map((g) => [g.status, g.path, g.maskedKey?.slice(-4), g.count])).toEqual([
      [400, '/v1/chat/completions', a.key.slice(-4), 1],
      [404, '/v1/models/:id', b.key.slice(-4), 2],
      [404, '/v1/models/:id', a.key.slice(-4), 3],
    ]);
    expect(groups[0]?.lastRequestId).toBe(lastChat);
    expect(groups[2]?.code).toBe('model_not_found');
    for (let i = 1; i < groups.length; i++) {
      expect(Date.parse(groups[i - 1]?.lastSeen ?? '')).toBeGreaterThanOrEqual(
        Date.parse(groups[i]?.lastSeen ?? ''),
      );
    }

    const oneEndpoint = await gql<GroupsData>(server, { cookie }, GROUPS, {
      method: 'GET',
      path: '/v1/models/:id',
    });
    expect(oneEndpoint.data?.usage.summary.totalRequests).toBe(5);
    expect(oneEndpoint.data?.usage.errorGroups.groups.map((g) => g.count)).toEqual([2, 3]);
    expect(new Set(oneEndpoint.data?.usage.recentErrors.edges.map((e) => e.node.path))).toEqual(
      new Set(['/v1/models/:id']),
    );

    const oneKey = await gql<GroupsData>(server, { cookie }, GROUPS, { keyId: b.id });
    expect(oneKey.data?.usage.errorGroups.groups.map((g) => g.count)).toEqual([2]);

    const half = await gql<GroupsData>(server, { cookie }, GROUPS, { method: 'GET' });
    expect(half.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(half.errors?.[0]?.message).toMatch(/`method` and `path`/);
  });
});

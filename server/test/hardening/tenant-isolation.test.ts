import type { CreatedApiKey } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRow, memberships } from '../../src/db/schema';
import { createAccount, createKey } from '../helpers/fixtures';
import { sessionCookie } from '../helpers/graphql';
import { LogCapture } from '../helpers/log-capture';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';
import { metricValue } from '../helpers/usage';

/**
 * Account B, with its key and its dashboard session, names account A's resources on every transport: each
 * attempt is refused with the same answer a missing resource gets, and logged once as
 * `tenant_isolation_denied` with B's account, the resource and the request id, and no secret.
 */
const logs = new LogCapture();
let server: TestServer;
let a: AccountRow & { password: string; ownerUserId: string };
let b: AccountRow & { password: string; ownerUserId: string };
let aKey: CreatedApiKey;
let bKey: CreatedApiKey;
let bCookie: string;

beforeAll(async () => {
  server = await startTestServer({ env: { LOG_LEVEL: 'info' }, logs });
  a = await createAccount(server);
  b = await createAccount(server);
  aKey = await createKey(server, a.id, 'test', 'a key');
  bKey = await createKey(server, b.id, 'test', 'b key');
  bCookie = await sessionCookie(server, b.id);
  const indexed = await rest(aKey.key, 'POST', '/api/documents', {
    collection: 'kb',
    documents: [{ id: 'a1', title: 'Quarterly secrets', text: 'zebra payroll figures of account A' }],
  });
  expect(indexed.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

let sequence = 0;
function nextRequestId(): string {
  sequence += 1;
  return `iso-${sequence}-${Date.now()}`;
}

async function rest(
  key: string,
  method: string,
  path: string,
  body?: unknown,
  requestId = nextRequestId(),
): Promise<{ status: number; body: Record<string, unknown>; requestId: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'x-request-id': requestId,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId };
}

async function graphql(
  auth: { authorization: string } | { cookie: string },
  query: string,
  variables: Record<string, unknown>,
): Promise<{ status: number; body: { data?: unknown; errors?: unknown[] }; requestId: string }> {
  const requestId = nextRequestId();
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...auth },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: unknown; errors?: unknown[] },
    requestId,
  };
}

function denials(requestId: string): Record<string, unknown>[] {
  return logs.find({ event: 'tenant_isolation_denied', request_id: requestId });
}

function expectOneDenial(requestId: string, fields: Record<string, unknown>): void {
  const lines = denials(requestId);
  expect(lines, `denial logged for ${requestId}`).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 40, actor_account: b.id, ...fields });
}

async function aDocumentText(): Promise<unknown> {
  const own = await rest(aKey.key, 'GET', '/api/documents/a1?collection=kb');
  expect(own.status).toBe(200);
  return own.body.text;
}

describe('tenant isolation over REST (API key)', () => {
  it("refuses B's reads and deletes of A's document and collection with 404, and logs each", async () => {
    const attempts = [
      {
        method: 'GET',
        path: '/api/documents/a1?collection=kb',
        kind: 'document',
        id: 'kb/a1',
        code: 'document_not_found',
      },
      {
        method: 'DELETE',
        path: '/api/documents/a1?collection=kb',
        kind: 'document',
        id: 'kb/a1',
        code: 'document_not_found',
      },
      {
        method: 'GET',
        path: '/api/documents/collections/kb',
        kind: 'collection',
        id: 'kb',
        code: 'collection_not_found',
      },
      {
        method: 'DELETE',
        path: '/api/documents/collections/kb',
        kind: 'collection',
        id: 'kb',
        code: 'collection_not_found',
      },
    ];
    for (const t of attempts) {
      const res = await rest(bKey.key, t.method, t.path);
      expect(res.status, `${t.method} ${t.path}`).toBe(404);
      expect(res.body).toMatchObject({ error: { code: t.code, type: 'invalid_request_error' } });
      expect(JSON.stringify(res.body)).not.toContain('zebra');
      expectOneDenial(res.requestId, {
        transport: 'rest',
        via: 'api_key',
        actor_key_id: bKey.id,
        resource_kind: t.kind,
        resource_id: t.id,
      });
    }
    // The same 404 as for an id nobody holds: the answer does not reveal that A has one.
    const missing = await rest(bKey.key, 'GET', '/api/documents/nobody-has-this?collection=kb');
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body.error as object).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(await aDocumentText()).toBe('zebra payroll figures of account A');
    expect((await rest(aKey.key, 'GET', '/api/documents/collections/kb')).body).toMatchObject({
      document_count: 1,
    });
  });

  it("B's list, search and writes stay in B's own namespace: A's data is neither shown nor changed", async () => {
    const list = await rest(bKey.key, 'GET', '/api/documents?collection=kb');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const search = await rest(bKey.key, 'POST', '/api/search', { collection: 'kb', query: 'zebra payroll' });
    expect(JSON.stringify(search.body)).not.toContain('a1');
    const overwrite = await rest(bKey.key, 'POST', '/api/documents', {
      collection: 'kb',
      documents: [{ id: 'a1', title: 'B', text: 'overwritten by B' }],
    });
    expect(overwrite.status).toBe(200);
    expect(await aDocumentText()).toBe('zebra payroll figures of account A');
    const own = await rest(bKey.key, 'GET', '/api/documents/a1?collection=kb');
    expect(own.body.text).toBe('overwritten by B');
    // Found resources and listings are not refusals: no denial line for any of them.
    for (const r of [list, search, overwrite, own]) expect(denials(r.requestId)).toEqual([]);
  });
});

describe('tenant isolation over tRPC (dashboard session)', () => {
  it("refuses B's revocation of A's key with NOT_FOUND, logs it, and A's key keeps working", async () => {
    const client = new TrpcTestClient(server.url);
    client.cookie = bCookie;
    const requestId = nextRequestId();
    const res = await client.mutation('keys.revoke', { id: aKey.id }, { 'x-request-id': requestId });
    expect(res.status).toBe(404);
    expect(res.error?.data.code).toBe('NOT_FOUND');
    expectOneDenial(requestId, {
      transport: 'trpc',
      via: 'session',
      resource_kind: 'api_key',
      resource_id: aKey.id,
      operation: 'keys.revoke',
    });
    expect((await rest(aKey.key, 'GET', '/v1/models')).status).toBe(200);
    const listed = await client.query<{ id: string }[]>('keys.list');
    expect(listed.data?.map((k) => k.id)).toEqual([bKey.id]);
  });

  it("refuses A's key to B's members of every role the same way: NOT_FOUND (never FORBIDDEN, which would tell it exists)", async () => {
    for (const role of ['admin', 'developer', 'viewer'] as const) {
      const user = await createAccount(server);
      await server.services.ctx.db
        .insert(memberships)
        .values({ accountId: b.id, userId: user.ownerUserId, role });
      const client = new TrpcTestClient(server.url);
      client.cookie = await sessionCookie(server, b.id, user.ownerUserId);
      const requestId = nextRequestId();
      const res = await client.mutation('keys.revoke', { id: aKey.id }, { 'x-request-id': requestId });
      expect(res.status, role).toBe(404);
      expectOneDenial(requestId, {
        transport: 'trpc',
        via: 'session',
        resource_kind: 'api_key',
        resource_id: aKey.id,
        operation: 'keys.revoke',
      });
      const listed = await client.query<{ id: string }[]>('keys.list');
      expect(listed.data?.map((k) => k.id)).toEqual([bKey.id]);
    }
    expect((await rest(aKey.key, 'GET', '/v1/models')).status).toBe(200);
  });
});

describe('tenant isolation over GraphQL (API key and session)', () => {
  const USAGE =
    'query U($keyId: ID) { usage(period: LAST_30D, keyId: $keyId) { summary { totalRequests } } }';

  it("answers B's usage query naming A's key with B's own (empty) scope, and logs it", async () => {
    for (const [auth, via] of [
      [{ authorization: `Bearer ${bKey.key}` }, 'api_key'],
      [{ cookie: bCookie }, 'session'],
    ] as const) {
      const res = await graphql(auth, USAGE, { keyId: aKey.id });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toEqual({ usage: { summary: { totalRequests: 0 } } });
      expectOneDenial(res.requestId, {
        transport: 'graphql',
        via,
        resource_kind: 'api_key',
        resource_id: aKey.id,
        operation: 'usage',
      });
    }
    // B naming its own key is not a refusal.
    const own = await graphql({ cookie: bCookie }, USAGE, { keyId: bKey.id });
    expect(own.body.errors).toBeUndefined();
    expect(denials(own.requestId)).toEqual([]);
  });
});

describe('the denial log', () => {
  it('carries ids only: no key, session token or password appears anywhere in the logs', () => {
    const text = logs.text();
    expect(logs.find({ event: 'tenant_isolation_denied' }).length).toBeGreaterThanOrEqual(7);
    const token = decodeURIComponent(bCookie.split('=')[1] ?? '');
    expect(token.length).toBeGreaterThan(20);
    for (const secret of [aKey.key, bKey.key, token, a.password, b.password]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('the denial counter', () => {
  it('counts every logged denial in /metrics by transport and resource kind, and names no account', async () => {
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    const counted = (transport: string, resource: string) =>
      metricValue(
        text,
        'tessera_tenant_isolation_denied_total',
        `{transport="${transport}",resource="${resource}"}`,
      );
    for (const transport of ['rest', 'graphql', 'trpc']) {
      for (const resource of ['api_key', 'document', 'collection']) {
        const logged = logs.find({ event: 'tenant_isolation_denied', transport, resource_kind: resource });
        expect(counted(transport, resource), `${transport} ${resource}`).toBe(logged.length);
      }
    }
    // What the tests above provoked: A's document twice and a missing one, A's collection twice, A's key by
    // tRPC four times (B's owner, then B's admin, developer and viewer) and by GraphQL twice. Series nobody hit are there at 0.
    expect(counted('rest', 'document')).toBe(3);
    expect(counted('rest', 'collection')).toBe(2);
    expect(counted('trpc', 'api_key')).toBe(4);
    expect(counted('graphql', 'api_key')).toBe(2);
    expect(text).toContain('tessera_tenant_isolation_denied_total{transport="trpc",resource="collection"} 0');
    for (const id of [a.id, b.id, aKey.id, bKey.id]) expect(text).not.toContain(id);
  });
});

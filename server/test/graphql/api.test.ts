import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql, sessionCookie, settleUsage, USAGE_QUERY } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const EVERYTHING = /* GraphQL */ `
  query Everything($keyId: ID) {
    viewer {
      account { id email name createdAt }
      plan
      limits { requestsPerMinute monthlyTokens }
      allowance { limit used remaining resetsAt }
      authenticatedBy
    }
    apiKeys { id name kind masked createdAt lastUsedAt revokedAt }
    models { id ownedBy contextWindow maxOutputTokens description }
    usage(period: LAST_30D, keyId: $keyId) {
      summary { totalRequests totalTokens }
      timeseries { requests }
      endpoints { method path requests }
      recentErrors(first: 100) { edges { node { requestId status path message maskedKey } } }
    }
  }
`;

async function call(key: string, path: string): Promise<string> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return String(res.headers.get('x-request-id'));
}

describe('GraphQL tenant isolation', () => {
  it("account B's key and session see nothing of account A", async () => {
    const a = await createAccount(server, { plan: 'pro' });
    const aKey = await createKey(server, a.id, 'test', 'a-secret-name');
    const b = await createAccount(server);
    const bKey = await createKey(server, b.id, 'live', 'b key');
    const aIds = [await call(aKey.key, '/v1/models'), await call(aKey.key, '/v1/models/a-private-model')];
    const bIds = [await call(bKey.key, '/v1/models/b-missing')];
    const rows = async (accountId: string) =>
      (await server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, accountId)))
        .length;
    await settleUsage(server, async () => (await rows(a.id)) + (await rows(b.id)), 3);

    for (const auth of [{ key: bKey.key }, { cookie: await sessionCookie(server, b.id) }]) {
      const r = await gql<Record<string, never>>(server, auth, EVERYTHING);
      expect(r.errors).toBeUndefined();
      const data = r.data as unknown as {
        viewer: { account: { id: string }; plan: string };
        apiKeys: { id: string }[];
        usage: {
          summary: { totalRequests: number };
          endpoints: { path: string }[];
          recentErrors: { edges: { node: { requestId: string } }[] };
        };
      };
      expect(data.viewer.account.id).toBe(b.id);
      expect(data.viewer.plan).toBe('FREE');
      expect(data.apiKeys.map((k) => k.id)).toEqual([bKey.id]);
      // B's own REST call, plus (with the key) its earlier GraphQL calls: never A's.
      expect(data.usage.recentErrors.edges.map((e) => e.node.requestId)).toEqual(bIds);
      for (const secret of [
        a.id,
        a.email,
        aKey.id,
        aKey.key.slice(-4),
        'a-secret-name',
        'a-private-model',
        ...aIds,
      ]) {
        expect(r.text).not.toContain(secret);
      }
      // Naming A's key changes nothing: the account scope always applies.
      const probe = await gql<{ usage: { summary: { totalRequests: number }; endpoints: unknown[] } }>(
        server,
        auth,
        USAGE_QUERY,
        { period: 'LAST_30D', keyId: aKey.id },
      );
      expect(probe.data?.usage.summary.totalRequests).toBe(0);
      expect(probe.data?.usage.endpoints).toEqual([]);
      expect(probe.text).not.toContain(aIds[1]);
    }
  });

  it('meters GraphQL calls made with a key, not those of the dashboard session', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id, 'test');
    await gql(server, { key: key.key }, '{ viewer { plan } }');
    await gql(server, { key: key.key }, '{ usage(period: CUSTOM) { from } }');
    await gql(server, { cookie: await sessionCookie(server, account.id) }, '{ viewer { plan } }');
    const rows = async () =>
      server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, account.id));
    await settleUsage(server, async () => (await rows()).length, 2);
    await new Promise((r) => setTimeout(r, 200));
    await server.services.usage.flush();
    const events = await rows();
    expect(events.map((e) => [e.method, e.route, e.status])).toEqual([
      ['POST', '/graphql', 200],
      ['POST', '/graphql', 200],
    ]);
    expect(events[1]).toMatchObject({ errorCode: 'BAD_USER_INPUT', errorType: 'graphql_error' });
  });
});

describe('GraphQL errors and limits', () => {
  it('refuses callers without credentials or with a bad key: 401 UNAUTHENTICATED', async () => {
    for (const auth of [
      null,
      { key: `sk_live_${'X'.repeat(32)}` },
      { cookie: 'tessera_session=nope-nope-nope-nope-nope' },
    ]) {
      const r = await gql(server, auth, '{ viewer { plan } }');
      expect(r.status).toBe(401);
      expect(r.data).toBeNull();
      expect(r.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('reports bad input with BAD_USER_INPUT and never a stack trace', async () => {
    const account = await createAccount(server);
    const auth = { cookie: await sessionCookie(server, account.id) };
    const cases = [
      '{ usage(period: CUSTOM) { from } }',
      '{ usage(period: CUSTOM, from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { from } }',
      '{ usage(period: LAST_24H, from: "2026-02-01T00:00:00Z") { from } }',
      '{ usage(period: CUSTOM, from: "yesterday", to: "2026-01-01T00:00:00Z") { from } }',
      '{ usage { recentErrors(first: 1000) { pageInfo { hasNextPage } } } }',
      '{ usage { recentErrors(after: "not-a-cursor") { pageInfo { hasNextPage } } } }',
    ];
    for (const query of cases) {
      const r = await gql(server, auth, query);
      expect(r.errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
      expect(r.text).not.toMatch(/stacktrace|at .*\.ts:\d+/);
    }
    const unknown = await gql(server, auth, '{ nope }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses queries over the depth or cost limit before running them', async () => {
    const account = await createAccount(server);
    const auth = { cookie: await sessionCookie(server, account.id) };
    // type → fields → type… multiplies at every level (ofType chains do not, and are not counted).
    const deep = `{ __type(name: "Query") { fields { type { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } } }`;
    const r1 = await gql(server, auth, deep);
    expect(r1.errors?.[0]?.message).toMatch(/levels deep|introspection depth/);
    const aliases = Array.from(
      { length: 60 },
      (_, i) => `e${i}: recentErrors(first: 100) { edges { cursor } }`,
    ).join(' ');
    const r2 = await gql(server, auth, `{ usage { ${aliases} } }`);
    expect(r2.errors?.[0]?.message).toMatch(/costs \d+/);
    expect(r2.data ?? null).toBeNull();
  });

  it('prices each aliased copy of a database-backed field by its queries: 200 usage summaries are refused', async () => {
    const account = await createAccount(server);
    const auth = { cookie: await sessionCookie(server, account.id) };
    const aliased = (n: number, selection: string) =>
      `{ ${Array.from({ length: n }, (_, i) => `u${i}: usage(period: LAST_30D) { ${selection} }`).join(' ')} }`;
    for (const selection of [
      'summary { totalRequests }',
      'timeseries { requests }',
      'endpoints { requests }',
      'deployments { rows { requests } }',
    ]) {
      const r = await gql(server, auth, aliased(200, selection));
      expect(r.errors?.[0]?.extensions?.code, selection).toBe('BAD_USER_INPUT');
      expect(r.errors?.[0]?.message, selection).toMatch(/costs \d+; at most 5000/);
      expect(r.data ?? null).toBeNull();
    }
    // Fields that read nothing stay cheap however often they are asked for.
    const cheap = await gql(server, auth, aliased(200, 'from to bucketSeconds'));
    expect(cheap.errors).toBeUndefined();
    // The dashboard's whole overview, errors page included, is far within the limit, a few times over too.
    const full = await gql(server, auth, USAGE_QUERY, { period: 'LAST_30D', first: 100 });
    expect(full.errors).toBeUndefined();
    const fourDashboards = await gql(
      server,
      auth,
      aliased(
        4,
        'summary { totalRequests } timeseries { requests } endpoints { requests } recentErrors(first: 100) { edges { cursor } }',
      ),
    );
    expect(fourDashboards.errors).toBeUndefined();
  });

  it('keeps introspection for the explorer, and refuses oversized or non-JSON bodies', async () => {
    const account = await createAccount(server);
    const auth = { cookie: await sessionCookie(server, account.id) };
    const intro = await gql<{ __type: { description: string } }>(
      server,
      auth,
      '{ __type(name: "Usage") { description } }',
    );
    expect(intro.data?.__type.description).toMatch(/rollups/);
    // The token figures say what they count: what models billed, not what refused calls would have sent.
    const summary = await gql<{ __type: { fields: { name: string; description: string }[] } }>(
      server,
      auth,
      '{ __type(name: "UsageSummary") { fields { name description } } }',
    );
    const totalTokens = summary.data?.__type.fields.find((f) => f.name === 'totalTokens');
    expect(totalTokens?.description).toMatch(/billed by models.*refused.*counts 0.*allowance/s);
    const big = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: auth.cookie },
      body: JSON.stringify({ query: `{ viewer { plan } } # ${'x'.repeat(1_100_000)}` }),
    });
    expect(big.status).toBe(413);
    expect(
      ((await big.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code,
    ).toBe('PAYLOAD_TOO_LARGE');
    const text = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: auth.cookie },
      body: '{ viewer { plan } }',
    });
    expect(text.status).toBe(415);
  });
});

/** Reading the audit log: tRPC, GraphQL and the export, paged, filtered, bounded, and each account its own. */
import type { AuditPage, CreatedApiKey } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_MAX_DAYS, EXPORT_MAX_ROWS } from '../../src/modules/audit';
import { createKey as createKeyAs } from '../../src/modules/keys';
import { usingPostgres } from '../helpers/database';
import { gql } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';
import { auditLog, PASSWORD, signedUp } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** An account with a few keys created and one revoked: 1 account.created + n key.created + 1 key.revoked. */
async function busyAccount(keys: number, name = 'svc') {
  const account = await signedUp(server);
  const created: CreatedApiKey[] = [];
  for (let i = 0; i < keys; i += 1) {
    const res = await account.web.mutation<CreatedApiKey>('keys.create', { name: `${name}-${i}` });
    if (!res.data) throw new Error('no key');
    created.push(res.data);
  }
  const first = created[0];
  if (first) await account.web.mutation('keys.revoke', { id: first.id });
  return { ...account, keys: created, cookie: account.web.cookie ?? '' };
}

const exportOf = (cookie: string | undefined, query: string) =>
  fetch(`${server.url}/api/audit/export${query}`, { headers: cookie ? { cookie } : {} });

const AUDIT_QUERY = /* GraphQL */ `
  query Audit($first: Int, $after: String, $action: String, $from: DateTime, $to: DateTime) {
    viewer {
      auditLog(first: $first, after: $after, action: $action, from: $from, to: $to) {
        edges { cursor node { id action actor { kind userId email } target { type id } details ip userAgent createdAt } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

interface AuditGql {
  viewer: {
    auditLog: {
      edges: {
        cursor: string;
        node: { id: string; action: string; actor: { kind: string; email: string | null }; details: string };
      }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };
}

describe(`audit log reads (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('tRPC: newest first, cursor pages that neither skip nor repeat, filters by action and time', async () => {
    const a = await busyAccount(5);
    const all = await auditLog(a.web);
    expect(all.map((e) => e.action)).toEqual([
      'key.revoked',
      ...Array(5).fill('key.created'),
      'account.created',
    ]);
    const times = all.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i += 1) {
      const page: AuditPage | undefined = (await a.web.query<AuditPage>('audit.list', { first: 2, after }))
        .data;
      if (!page) throw new Error('no page');
      seen.push(...page.events.map((e) => e.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((e) => e.id));

    const created = await auditLog(a.web, { action: 'key.created' });
    expect(created.map((e) => e.target?.id).sort()).toEqual(a.keys.map((k) => k.id).sort());
    const middle = all[3];
    if (!middle) throw new Error('no event');
    const older = await auditLog(a.web, { to: middle.createdAt });
    expect(older.every((e) => Date.parse(e.createdAt) < Date.parse(middle.createdAt))).toBe(true);
    const newer = await auditLog(a.web, { from: middle.createdAt });
    expect(newer.length + older.length).toBe(all.length);

    const bad = await a.web.query('audit.list', { action: 'key.stolen' });
    expect(bad.status).toBe(400);
    expect((await a.web.query('audit.list', { first: 1000 })).status).toBe(400);
    expect((await a.web.query('audit.list', { after: 'not-a-cursor' })).status).toBe(400);
    expect(
      (await a.web.query('audit.list', { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).status,
    ).toBe(400);
  });

  it('tenant isolation: B never sees A’s events (tRPC, GraphQL, export), and A’s cursor shows B nothing of A', async () => {
    const a = await busyAccount(3, 'alpha');
    const b = await busyAccount(1, 'beta');
    const aIds = new Set((await auditLog(a.web)).map((e) => e.id));
    const bEvents = await auditLog(b.web);
    expect(bEvents.some((e) => aIds.has(e.id))).toBe(false);
    expect(JSON.stringify(bEvents)).not.toContain('alpha');

    const aPage = (await a.web.query<AuditPage>('audit.list', { first: 1 })).data;
    const cursor = aPage?.pageInfo.endCursor;
    if (!cursor) throw new Error('no cursor');
    const withACursor = (await b.web.query<AuditPage>('audit.list', { first: 100, after: cursor })).data;
    expect(withACursor?.events.some((e) => aIds.has(e.id))).toBe(false);
    expect(JSON.stringify(withACursor)).not.toContain(a.email);

    const viaGql = await gql<AuditGql>(server, { cookie: b.cookie }, AUDIT_QUERY, {
      first: 100,
      after: cursor,
    });
    expect(viaGql.errors).toBeUndefined();
    expect(viaGql.text).not.toContain(a.email);
    expect(viaGql.text).not.toContain('alpha');
    const bAll = await gql<AuditGql>(server, { cookie: b.cookie }, AUDIT_QUERY, { first: 100 });
    expect(bAll.data?.viewer.auditLog.edges.map((e) => e.node.id).sort()).toEqual(
      bEvents.map((e) => e.id).sort(),
    );

    const exported = await (await exportOf(b.cookie, '?format=jsonl')).text();
    expect(exported).not.toContain(a.email);
    expect(exported).not.toContain('alpha');
    expect(exported.trim().split('\n')).toHaveLength(bEvents.length);
  });

  it('GraphQL: pages by cursor, filters, refuses bad arguments, scoped keys, and costs by `first`', async () => {
    const a = await busyAccount(4);
    const all = await auditLog(a.web);
    const ids: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i += 1) {
      const res: Awaited<ReturnType<typeof gql<AuditGql>>> = await gql<AuditGql>(
        server,
        { cookie: a.cookie },
        AUDIT_QUERY,
        { first: 3, after },
      );
      expect(res.errors).toBeUndefined();
      const log = res.data?.viewer.auditLog;
      if (!log) throw new Error('no log');
      ids.push(...log.edges.map((e) => e.node.id));
      if (!log.pageInfo.hasNextPage) break;
      after = log.pageInfo.endCursor;
    }
    expect(ids).toEqual(all.map((e) => e.id));

    const revoked = await gql<AuditGql>(server, { cookie: a.cookie }, AUDIT_QUERY, { action: 'key.revoked' });
    const edge = revoked.data?.viewer.auditLog.edges[0];
    expect(revoked.data?.viewer.auditLog.edges).toHaveLength(1);
    expect(edge?.node).toMatchObject({ action: 'key.revoked', actor: { kind: 'USER', email: a.email } });
    expect(JSON.parse(edge?.node.details ?? '{}')).toMatchObject({ name: 'svc-0' });

    const badAction = await gql(server, { cookie: a.cookie }, AUDIT_QUERY, { action: 'nope' });
    expect(badAction.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const badFirst = await gql(server, { cookie: a.cookie }, AUDIT_QUERY, { first: 0 });
    expect(badFirst.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(badFirst.errors?.[0]?.message).toBe(
      "Invalid value for 'first': expected an integer between 1 and 100, but received number 0.",
    );
    const badCursor = await gql(server, { cookie: a.cookie }, AUDIT_QUERY, { after: '!!' });
    expect(badCursor.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    // A key without scopes reads the account as other reads do; a scoped key is refused before any resolver.
    const open = await createKeyAs({
      ctx: server.services.ctx,
      accountId: a.id,
      input: { name: 'k', kind: 'test' },
    });
    const viaKey = await gql<AuditGql>(server, { key: open.key }, AUDIT_QUERY, { first: 100 });
    expect(viaKey.data?.viewer.auditLog.edges.length).toBe(all.length);
    const scoped = await createKeyAs({
      ctx: server.services.ctx,
      accountId: a.id,
      input: { name: 'k2', kind: 'test', scopes: ['chat'] },
    });
    const refused = await gql(server, { key: scoped.key }, AUDIT_QUERY, {});
    expect(refused.data).toBeNull();
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    // The cost rule prices the log's page by `first`: 100 aliased full pages are refused before anything runs.
    const aliases = Array.from(
      { length: 20 },
      (_, i) => `l${i}: auditLog(first: 100) { edges { cursor node { id action details } } }`,
    ).join(' ');
    const costly = await gql(server, { cookie: a.cookie }, `{ viewer { ${aliases} } }`);
    expect(costly.errors?.[0]?.message).toMatch(/costs \d+; at most 5000/);
  });

  it('export: CSV and JSONL of the range, injection-safe, no secret, bounded, and only with a session', async () => {
    const a = await busyAccount(2, '=HYPERLINK("http://evil.example")');
    // A user agent is the caller's text and is a cell of its own: a formula there must be defused.
    const again = new TrpcTestClient(server.url);
    const signIn = await again.mutation(
      'auth.signIn',
      { email: a.email, password: PASSWORD },
      { 'user-agent': '=HYPERLINK("http://evil.example","x")' },
    );
    expect(signIn.status).toBe(200);
    const all = await auditLog(a.web);

    const csv = await exportOf(a.cookie, '?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="tessera-audit-.*\.csv"$/);
    const text = await csv.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'created_at,id,action,actor_kind,actor_user_id,actor_email,target_type,target_id,ip,user_agent,details',
    );
    expect(lines).toHaveLength(all.length + 1);
    expect(lines[1]).toContain('auth.sign_in');
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    // The key's name went into details as JSON: that cell starts with `{`, never with `=`; no cell starts with one.
    for (const line of lines.slice(1)) expect(line).not.toMatch(/(^|,)"?[=+@-]/);
    expect(text).toContain('HYPERLINK');
    for (const key of a.keys) expect(text).not.toContain(key.key);

    const jsonl = await exportOf(a.cookie, '?format=jsonl');
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const rows = (await jsonl.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; action: string });
    expect(rows.map((r) => r.id)).toEqual(all.map((e) => e.id));
    for (const key of a.keys) expect(JSON.stringify(rows)).not.toContain(key.key);

    // A range before the account existed is an empty file with its header.
    const empty = await (
      await exportOf(a.cookie, '?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z')
    ).text();
    expect(empty.trimEnd().split('\r\n')).toHaveLength(1);

    const tooLong = await exportOf(a.cookie, `?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
    expect(tooLong.status).toBe(400);
    const body = (await tooLong.json()) as { error: { code: string; message: string; param: string } };
    expect(body.error).toMatchObject({ code: 'export_range_too_large', param: 'from' });
    expect(body.error.message).toContain(`${EXPORT_MAX_DAYS} days`);
    // Bad input reads like every other 400 of the server (lib/invalid-parameter.ts).
    const errorOf = async (q: string) => {
      const res = await exportOf(a.cookie, q);
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { code: string; message: string; param: string } }).error;
    };
    expect(await errorOf('?format=xml')).toEqual({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'format',
      message: `Invalid value for 'format': expected one of "csv", "jsonl", but received the string 'xml'.`,
    });
    expect(await errorOf('?from=yesterday')).toMatchObject({
      param: 'from',
      message: `Invalid value for 'from': expected an ISO 8601 date and time, such as 2027-01-31T12:00:00Z, but received the string 'yesterday'.`,
    });
    expect(await errorOf('?format=csv&format=jsonl')).toMatchObject({
      param: 'format',
      code: 'invalid_value',
    });
    expect(await errorOf('?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')).toMatchObject({
      param: 'from',
      message: "Invalid value for 'from': expected a time before 'to'.",
    });
    const anonymous = await exportOf(undefined, '');
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('session_required');
    // Several batches (1,000 rows a query), some sharing a millisecond: every event once, newest first.
    const { id: busy, cookie: busyCookie } = await busyAccount(0, 'batches');
    await server.services.ctx.db.execute(sql`
      insert into audit_events (account_id, actor_kind, action, created_at, details)
      select ${busy}, 'system', 'key.created',
             date_trunc('milliseconds', now()) - (i / 3) * interval '1 millisecond' - interval '1 minute',
             jsonb_build_object('n', i)
      from generate_series(1, 2500) as i`);
    const streamed = (await (await exportOf(busyCookie, '?format=jsonl')).text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; createdAt: string });
    expect(streamed).toHaveLength(2501);
    expect(new Set(streamed.map((e) => e.id)).size).toBe(2501);
    const order = streamed.map((e) => [Date.parse(e.createdAt), Number(e.id)] as const);
    for (let i = 1; i < order.length; i += 1) {
      const [prev, cur] = [order[i - 1], order[i]];
      if (!prev || !cur) continue;
      expect(prev[0] > cur[0] || (prev[0] === cur[0] && prev[1] > cur[1])).toBe(true);
    }

    // The database keeps times to the millisecond, which cursors rely on: a finer one is refused.
    const fine = await server.services.ctx.db
      .execute(sql`insert into audit_events (account_id, actor_kind, action, created_at)
        values (${busy}, 'system', 'key.created', '2026-01-01T00:00:00.000500Z')`)
      .then(
        () => 'stored',
        (err: Error & { cause?: Error }) => `${err.message} ${err.cause?.message ?? ''}`,
      );
    expect(fine).toMatch(/audit_events_created_ms/);

    // More events in the range than an export holds: refused before the first byte, naming the bound.
    const { id: crowded, cookie: crowdedCookie } = await busyAccount(0, 'crowded');
    await server.services.ctx.db.execute(sql`
      insert into audit_events (account_id, actor_kind, action)
      select ${crowded}, 'system', 'key.created' from generate_series(1, ${EXPORT_MAX_ROWS})`);
    const crowdedExport = await exportOf(crowdedCookie, '');
    expect(crowdedExport.status).toBe(400);
    expect(((await crowdedExport.json()) as { error: { code: string } }).error.code).toBe('export_too_large');
    // No other origin may read it: CORS is never granted on the export.
    const cross = await fetch(`${server.url}/api/audit/export`, {
      headers: { cookie: a.cookie, origin: 'https://evil.example' },
    });
    expect(cross.headers.get('access-control-allow-origin')).toBeNull();
  });
});

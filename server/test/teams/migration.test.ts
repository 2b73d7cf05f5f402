import type { SessionView } from '@tessera/shared';
import { sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/hash';
import { hashPassword } from '../../src/modules/accounts';
import { generateKey } from '../../src/modules/keys';
import { HISTOGRAM_SIZE } from '../../src/modules/usage/histogram';
import { openTestDatabase, usingPostgres } from '../helpers/database';
import { gql } from '../helpers/graphql';
import { migrateWith, migrationsBefore } from '../helpers/migrations';
import type { TestServer } from '../helpers/server';
import { startTeamsServer } from '../helpers/teams';
import { TrpcTestClient } from '../helpers/trpc-client';

const PASSWORD = 'an old password 42';

/**
 * Accounts written the old way (before 0015_teams: email and password hash on the account, sessions without
 * a user), then the migration, then the real server: nothing is lost.
 */
describe(`migration 0015 turns every account into an organisation of one (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  let server: TestServer;
  const old = [
    { id: 'acc_old1', email: 'first@example.com', key: generateKey('test'), token: `tok-${'a'.repeat(40)}` },
    { id: 'acc_old2', email: 'second@example.com', key: generateKey('live'), token: `tok-${'b'.repeat(40)}` },
  ];

  beforeAll(async () => {
    const database = await openTestDatabase();
    const before = migrationsBefore('0015_teams');
    await migrateWith(database.db, before);
    const db = database.db;
    const hash = await hashPassword(PASSWORD);
    for (const a of old) {
      await db.execute(sql`insert into accounts (id, email, name, password_hash, plan)
        values (${a.id}, ${a.email}, ${`Org ${a.id}`}, ${hash}, 'pro')`);
      await db.execute(sql`insert into api_keys (id, account_id, name, kind, key_hash, last4)
        values (${`key_${a.id}`}, ${a.id}, 'old key', ${a.key.key.startsWith('sk_live_') ? 'live' : 'test'},
          ${a.key.hash}, ${a.key.last4})`);
      await db.execute(sql`insert into sessions (id, token_hash, account_id, expires_at)
        values (${`ses_${a.id}`}, ${sha256Hex(a.token)}, ${a.id}, now() + interval '1 day')`);
      const histogram = Array.from({ length: HISTOGRAM_SIZE }, (_, i) => (i === 3 ? 7 : 0));
      await db.execute(sql`insert into usage_rollups (account_id, granularity, bucket_start, mode, key_id, method,
          route, status_class, requests, errors, latency_sum_ms, latency_histogram, latency_max_ms, token_requests,
          prompt_tokens, completion_tokens)
        values (${a.id}, 'hour', date_trunc('hour', now()), 'test', ${`key_${a.id}`}, 'GET', '/v1/models', '2xx',
          7, 0, 70, ${`{${histogram.join(',')}}`}::integer[], 12, 0, 0, 0)`);
    }
    server = await startTeamsServer({ database });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the old password signs in, as the organisation owner', async () => {
    for (const a of old) {
      const client = new TrpcTestClient(server.url);
      const res = await client.mutation('auth.signIn', { email: a.email, password: PASSWORD });
      expect(res.status).toBe(200);
      const session = await client.query<SessionView>('auth.session');
      // The user took the account's id, email and name; the membership is the owner's.
      expect(session.data?.user).toEqual({ id: a.id, email: a.email, name: `Org ${a.id}` });
      expect(session.data?.organisation).toEqual({ id: a.id, name: `Org ${a.id}`, role: 'owner' });
      const wrong = await new TrpcTestClient(server.url).mutation('auth.signIn', {
        email: a.email,
        password: 'not it at all',
      });
      expect(wrong.status).toBe(401);
    }
  });

  it('an existing session keeps working, and the keys still verify (openai SDK)', async () => {
    for (const a of old) {
      const client = new TrpcTestClient(server.url);
      client.cookie = `tessera_session=${a.token}`;
      const account = await client.query<{ id: string; role: string; plan: string }>('auth.account');
      expect(account.data).toMatchObject({ id: a.id, role: 'owner', plan: 'pro' });
      const keys =
        await client.query<{ id: string; ownerUserId: string | null; state: string }[]>('keys.list');
      expect(keys.data).toEqual([
        expect.objectContaining({ id: `key_${a.id}`, ownerUserId: a.id, state: 'active' }),
      ]);
      const sdk = new OpenAI({ apiKey: a.key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const models = await sdk.models.list();
      expect(models.data.length).toBeGreaterThan(0);
    }
  });

  it('usage is still readable, and each organisation sees only its own', async () => {
    for (const a of old) {
      const res = await gql<{ usage: { summary: { totalRequests: number } }; viewer: { role: string } }>(
        server,
        { cookie: `tessera_session=${a.token}` },
        '{ viewer { role } usage(period: LAST_7D, mode: TEST) { summary { totalRequests } } }',
      );
      expect(res.errors).toBeUndefined();
      expect(res.data?.viewer.role).toBe('OWNER');
      // 7 migrated requests; the SDK call above may have added one more (metered asynchronously).
      expect(res.data?.usage.summary.totalRequests).toBeGreaterThanOrEqual(7);
      expect(res.data?.usage.summary.totalRequests).toBeLessThanOrEqual(8);
    }
  });

  it('the hashes moved: accounts keep no password hash, users hold them', async () => {
    const cols = await server.services.ctx.db.execute(
      sql`select column_name from information_schema.columns where table_name = 'accounts' and column_name = 'password_hash'`,
    );
    const rows = Array.isArray(cols) ? cols : (cols as { rows: unknown[] }).rows;
    expect(rows).toHaveLength(0);
  });
});

import type { AccountView, ApiKeyView, CreatedApiKey } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('sign-up → key → call → revoke', () => {
  it('walks a new customer through the whole flow over HTTP', async () => {
    const web = new TrpcTestClient(server.url);
    const email = `Flow-${Date.now()}@Example.com`;
    const signUp = await web.mutation<AccountView>('auth.signUp', {
      email,
      password: 'a long enough password',
    });
    expect(signUp.status).toBe(200);
    expect(signUp.data?.email).toBe(email.toLowerCase());
    expect(signUp.data?.plan).toBe('free');
    expect(signUp.data?.limits).toEqual({ requestsPerMinute: 100, monthlyTokens: 100_000 });
    expect(signUp.setCookie).toMatch(/tessera_session=/);
    expect(signUp.setCookie).toMatch(/HttpOnly/i);
    expect(signUp.setCookie).toMatch(/SameSite=Lax/i);

    const me = await web.query<AccountView>('auth.me');
    expect(me.data?.email).toBe(email.toLowerCase());

    const created = await web.mutation<CreatedApiKey>('keys.create', { name: 'backend', kind: 'live' });
    expect(created.status).toBe(200);
    const key = created.data?.key ?? '';
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(created.data?.masked).toBe(`sk_live_…${key.slice(-4)}`);

    const listed = await web.query<ApiKeyView[]>('keys.list');
    expect(listed.data).toHaveLength(1);
    expect(JSON.stringify(listed.data)).not.toContain(key.slice(8));
    expect(listed.data?.[0]?.masked).toBe(created.data?.masked);

    const ok = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { object: string }).object).toBe('list');

    const revoked = await web.mutation<ApiKeyView>('keys.revoke', { id: created.data?.id });
    expect(revoked.data?.revokedAt).not.toBeNull();

    const denied = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(denied.status).toBe(401);
    const body = (await denied.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_api_key');
    expect(body.error.message).not.toContain(key);
    expect(body.error.message).toContain(`sk_live_…${key.slice(-4)}`);
  });

  it('signs in and out; wrong passwords are refused with one message', async () => {
    const web = new TrpcTestClient(server.url);
    const email = `in-out-${Date.now()}@example.com`;
    await web.mutation('auth.signUp', { email, password: 'a long enough password' });
    await web.mutation('auth.signOut');
    expect((await web.query('auth.me')).data).toBeNull();
    expect((await web.query('keys.list')).status).toBe(401);

    const wrong = await web.mutation('auth.signIn', { email, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.error?.message).toBe('Incorrect email or password.');
    const unknown = await web.mutation('auth.signIn', {
      email: 'nobody@example.com',
      password: 'whatever123',
    });
    expect(unknown.error?.message).toBe('Incorrect email or password.');

    const right = await web.mutation<AccountView>('auth.signIn', {
      email,
      password: 'a long enough password',
    });
    expect(right.status).toBe(200);
    expect((await web.query<AccountView>('auth.me')).data?.email).toBe(email);
  });

  it('rejects a duplicate email and explains weak input field by field', async () => {
    const web = new TrpcTestClient(server.url);
    const email = `dup-${Date.now()}@example.com`;
    await web.mutation('auth.signUp', { email, password: 'a long enough password' });
    const dup = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      email,
      password: 'another password',
    });
    expect(dup.status).toBe(409);
    const bad = await new TrpcTestClient(server.url).mutation('auth.signUp', {
      email: 'nope',
      password: 'short',
    });
    expect(bad.status).toBe(400);
    expect(bad.error?.data.fieldErrors).toEqual({
      email: ['Enter a valid email address'],
      password: ['Password must be at least 10 characters'],
    });
  });

  it('slows down repeated failed sign-ins for one email (auth/throttle.test.ts has the rest)', async () => {
    const web = new TrpcTestClient(server.url);
    const email = `throttle-${Date.now()}@example.com`;
    await web.mutation('auth.signUp', { email, password: 'a long enough password' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await web.mutation('auth.signIn', { email, password: `wrong-${i}-password` })).status);
    }
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses[5]).toBe(429);
  });

  it('refuses mutations without the CSRF header', async () => {
    const res = await fetch(`${server.url}/trpc/auth.signUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `csrf-${Date.now()}@example.com`, password: 'a long enough password' }),
    });
    expect(res.status).toBe(403);
  });

  it("never lets one account revoke another's key", async () => {
    const a = new TrpcTestClient(server.url);
    const b = new TrpcTestClient(server.url);
    await a.mutation('auth.signUp', {
      email: `a-${Date.now()}@example.com`,
      password: 'a long enough password',
    });
    await b.mutation('auth.signUp', {
      email: `b-${Date.now()}@example.com`,
      password: 'a long enough password',
    });
    const key = await a.mutation<CreatedApiKey>('keys.create', { name: 'a', kind: 'test' });
    const attempt = await b.mutation('keys.revoke', { id: key.data?.id });
    expect(attempt.status).toBe(404);
    const still = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${key.data?.key}` },
    });
    expect(still.status).toBe(200);
    expect((await b.query<ApiKeyView[]>('keys.list')).data).toEqual([]);
  });
});

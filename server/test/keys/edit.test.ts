import type { ApiKeyView, CreatedApiKey } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyVerifier, presentedKey, updateKey } from '../../src/modules/keys';
import { createAccount, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0' } });
});
afterAll(async () => {
  await server?.close();
});

async function dashboard(): Promise<TrpcTestClient> {
  const web = new TrpcTestClient(server.url);
  const signUp = await web.mutation('auth.signUp', {
    email: `edit-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'a long enough password',
  });
  expect(signUp.status).toBe(200);
  return web;
}

const chat = (key: string) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('editing a key’s settings (tRPC)', () => {
  it('applies at once on this instance: scopes narrowed, then cleared; fields left out stay', async () => {
    const web = await dashboard();
    const key = (await web.mutation<CreatedApiKey>('keys.create', { name: 'svc', requestsPerMinute: 20 }))
      .data;
    if (!key) throw new Error('no key');
    expect((await chat(key.key)).status).toBe(200);

    const narrowed = await web.mutation<ApiKeyView>('keys.update', {
      id: key.id,
      name: 'svc-2',
      scopes: ['models'],
    });
    expect(narrowed.data).toMatchObject({ name: 'svc-2', scopes: ['models'], requestsPerMinute: 20 });
    const refused = await chat(key.key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('permission_denied');

    const cleared = await web.mutation<ApiKeyView>('keys.update', {
      id: key.id,
      scopes: null,
      requestsPerMinute: null,
    });
    expect(cleared.data).toMatchObject({ name: 'svc-2', scopes: null, requestsPerMinute: null });
    expect((await chat(key.key)).status).toBe(200);
    const listed = await web.query<ApiKeyView[]>('keys.list');
    expect(listed.data?.[0]).toMatchObject({ id: key.id, name: 'svc-2', scopes: null });
  });

  it('another instance applies an edit at its next sync, without reading the key again', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id);
    const elsewhere = new ApiKeyVerifier(server.services.ctx);
    await elsewhere.verify(presentedKey(`Bearer ${key.key}`));
    await elsewhere.sync();
    await updateKey({
      ctx: server.services.ctx,
      accountId: account.id,
      input: { id: key.id, models: ['tessera-fast-4k'], expiresAt: '2099-01-01T00:00:00Z' },
      modelExists: (id) => server.services.catalogue.find(id) !== undefined,
    });
    await elsewhere.sync();
    const principal = await elsewhere.verify(presentedKey(`Bearer ${key.key}`));
    expect([...(principal.access?.models ?? [])]).toEqual(['tessera-fast-4k']);
    expect(principal.access?.expiresAt).toBe(Date.parse('2099-01-01T00:00:00Z'));
  });

  it('400 with the field for settings outside the plan; 404 for another account’s key; 409 once revoked', async () => {
    const web = await dashboard();
    const key = (await web.mutation<CreatedApiKey>('keys.create', { name: 'k', kind: 'live' })).data;
    if (!key) throw new Error('no key');
    const over = await web.mutation('keys.update', { id: key.id, requestsPerMinute: 1_000 });
    expect(over.status).toBe(400);
    expect(over.error?.data.fieldErrors?.requestsPerMinute?.[0]).toMatch(/within the plan's limit of 100/);
    const budget = await web.mutation('keys.update', {
      id: key.id,
      tokenBudget: { tokens: 0, period: 'day' },
    });
    expect(budget.status).toBe(400);
    expect(Object.keys(budget.error?.data.fieldErrors ?? {})).toEqual(['tokenBudget.tokens']);
    const period = await web.mutation('keys.update', {
      id: key.id,
      tokenBudget: { tokens: 10, period: 'year' },
    });
    expect(period.status).toBe(400);

    const stranger = await createAccount(server);
    const theirs = await createKey(server, stranger.id);
    const denied = await web.mutation('keys.update', { id: theirs.id, scopes: ['models'] });
    expect(denied.status).toBe(404);
    expect(denied.error?.data.code).toBe('NOT_FOUND');
    expect((await chat(theirs.key)).status).toBe(200);

    await web.mutation('keys.revoke', { id: key.id });
    const revoked = await web.mutation('keys.update', { id: key.id, name: 'again' });
    expect(revoked.status).toBe(409);
  });
});

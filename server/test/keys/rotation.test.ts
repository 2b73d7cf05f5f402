import type { ApiKeyView, CreatedApiKey } from '@tessera/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RotatedKey } from '../../src/modules/keys';
import { ApiKeyVerifier, presentedKey, rotateKey } from '../../src/modules/keys';
import { createAccount, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
let skippedMs = 0;
beforeAll(async () => {
  server = await startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0' },
    clock: { now: () => Date.now() + skippedMs },
  });
});
afterAll(async () => {
  await server?.close();
});

async function dashboard(): Promise<TrpcTestClient> {
  const web = new TrpcTestClient(server.url);
  const signUp = await web.mutation('auth.signUp', {
    email: `rotate-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'a long enough password',
  });
  expect(signUp.status).toBe(200);
  return web;
}

const models = (key: string) =>
  fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

describe('key rotation', () => {
  it('the replacement has the same settings; the old key works through the grace period, then 401 expired_api_key', async () => {
    const web = await dashboard();
    const created = await web.mutation<CreatedApiKey>('keys.create', {
      name: 'backend',
      kind: 'live',
      scopes: ['models', 'chat'],
      models: ['tessera-fast-4k'],
      requestsPerMinute: 50,
      tokenBudget: { tokens: 5_000, period: 'week' },
    });
    const old = created.data;
    if (!old) throw new Error(JSON.stringify(created.error));
    expect((await models(old.key)).status).toBe(200);

    const rotated = await web.mutation<RotatedKey>('keys.rotate', { id: old.id, gracePeriodSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.data?.key;
    if (!fresh) throw new Error('no replacement');
    expect(fresh.key).toMatch(/^sk_live_/);
    expect(fresh.key).not.toBe(old.key);
    expect(fresh).toMatchObject({
      name: 'backend',
      kind: 'live',
      scopes: ['chat', 'models'],
      models: ['tessera-fast-4k'],
      requestsPerMinute: 50,
      tokenBudget: { tokens: 5_000, period: 'week' },
      expiresAt: null,
      state: 'active',
    });
    expect(rotated.data?.previous).toMatchObject({ id: old.id, state: 'rotating', replacedById: fresh.id });
    const until = rotated.data?.previous.expiresAt ?? '';
    expect(Date.parse(until) - (Date.now() + skippedMs)).toBeGreaterThan(3_590_000);

    // Both work during the grace period, and both show in the list with their state.
    expect((await models(old.key)).status).toBe(200);
    expect((await models(fresh.key)).status).toBe(200);
    const listed = await web.query<ApiKeyView[]>('keys.list');
    expect(listed.data?.map((k) => [k.id, k.state])).toEqual([
      [fresh.id, 'active'],
      [old.id, 'rotating'],
    ]);

    skippedMs += 3_601_000;
    const sdk = new OpenAI({ apiKey: old.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await sdk.models.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'expired_api_key' });
    expect((await models(fresh.key)).status).toBe(200);
    const after = await web.query<ApiKeyView[]>('keys.list');
    expect(after.data?.map((k) => k.state)).toEqual(['active', 'expired']);
  });

  it('a key is rotated once; a revoked key cannot be; another account’s key is not found', async () => {
    const web = await dashboard();
    const key = (await web.mutation<CreatedApiKey>('keys.create', { name: 'k' })).data;
    if (!key) throw new Error('no key');
    expect((await web.mutation('keys.rotate', { id: key.id, gracePeriodSeconds: 60 })).status).toBe(200);
    const twice = await web.mutation('keys.rotate', { id: key.id, gracePeriodSeconds: 60 });
    expect(twice.status).toBe(409);
    expect(twice.error?.message).toMatch(/already rotated/);

    const revoked = (await web.mutation<CreatedApiKey>('keys.create', { name: 'r' })).data;
    await web.mutation('keys.revoke', { id: revoked?.id });
    expect((await web.mutation('keys.rotate', { id: revoked?.id, gracePeriodSeconds: 60 })).status).toBe(409);

    const stranger = await createAccount(server);
    const theirs = await createKey(server, stranger.id);
    const denied = await web.mutation('keys.rotate', { id: theirs.id, gracePeriodSeconds: 60 });
    expect(denied.status).toBe(404);
    expect(denied.error?.data.code).toBe('NOT_FOUND');
    expect((await models(theirs.key)).status).toBe(200);

    const bad = await web.mutation('keys.rotate', { id: key.id, gracePeriodSeconds: -1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.error?.data.fieldErrors ?? {})).toEqual(['gracePeriodSeconds']);
  });

  it('another instance stops the old key at its next sync after a rotation with no grace', async () => {
    const account = await createAccount(server);
    const key = await createKey(server, account.id);
    const elsewhere = new ApiKeyVerifier(server.services.ctx);
    await elsewhere.verify(presentedKey(`Bearer ${key.key}`));
    await elsewhere.sync();
    await rotateKey({
      ctx: server.services.ctx,
      accountId: account.id,
      input: { id: key.id, gracePeriodSeconds: 0 },
    });
    await elsewhere.sync();
    await expect(elsewhere.verify(presentedKey(`Bearer ${key.key}`))).rejects.toMatchObject({
      code: 'expired_api_key',
    });
  });
});

import type { ApiKeyView, CreatedApiKey } from '@tessera/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey } from '../helpers/fixtures';
import { gql, sessionCookie } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { TrpcTestClient } from '../helpers/trpc-client';

let server: TestServer;
/** The server's clock: real time plus what a test has skipped ahead. */
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

/** A signed-in dashboard client of a fresh account. */
async function dashboard(): Promise<TrpcTestClient> {
  const web = new TrpcTestClient(server.url);
  const signUp = await web.mutation('auth.signUp', {
    email: `keys-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'a long enough password',
  });
  expect(signUp.status).toBe(200);
  return web;
}

async function created(web: TrpcTestClient, input: Record<string, unknown>): Promise<CreatedApiKey> {
  const res = await web.mutation<CreatedApiKey>('keys.create', { name: 'scoped', kind: 'test', ...input });
  expect(res.error).toBeUndefined();
  if (!res.data) throw new Error('no key');
  return res.data;
}

const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

async function errorOf(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

const hello = { model: 'tessera-fast-4k', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('endpoint scopes', () => {
  it('a key limited to models may list models but gets 403 permission_denied for chat (openai SDK)', async () => {
    const web = await dashboard();
    const key = await created(web, { scopes: ['models'] });
    expect(key.scopes).toEqual(['models']);
    const client = sdk(key.key);
    expect((await client.models.list()).data.length).toBeGreaterThan(0);

    const err = await errorOf(client.chat.completions.create(hello));
    expect(err.status).toBe(403);
    expect(err.code).toBe('permission_denied');
    expect(err.type).toBe('permission_denied');
    expect(err.message).toContain("'chat' scope");
    const body = err.error as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('search read and write are separate scopes; code analysis is its own', async () => {
    const web = await dashboard();
    const reader = await created(web, { scopes: ['search_read'] });
    const auth = { authorization: `Bearer ${reader.key}`, 'content-type': 'application/json' };
    const search = await fetch(`${server.url}/api/search`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ query: 'anything' }),
    });
    expect(search.status).toBe(200);
    const write = await fetch(`${server.url}/api/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ documents: [{ id: 'd1', text: 'hello' }] }),
    });
    expect(write.status).toBe(403);
    const body = (await write.json()) as { error: { code: string; message: string; param: null } };
    expect(body.error.code).toBe('permission_denied');
    expect(body.error.message).toContain("'search_write' scope");
    const analyze = await fetch(`${server.url}/api/code/analyze`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ language: 'python', code: 'x = 1' }),
    });
    expect(analyze.status).toBe(403);
    expect(((await analyze.json()) as { error: { message: string } }).error.message).toContain(
      "'code_analysis' scope",
    );
  });

  it('a key limited to some endpoints may not read the account through GraphQL; one without scopes may', async () => {
    const web = await dashboard();
    const scoped = await created(web, { scopes: ['chat'] });
    const denied = await gql(server, { key: scoped.key }, '{ apiKeys { id } }');
    expect(denied.data).toBeNull();
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(denied.errors?.[0]?.message).toMatch(/limited to some endpoints \(chat\)/);
    const open = await created(web, {});
    const allowed = await gql<{ apiKeys: unknown[] }>(server, { key: open.key }, '{ apiKeys { id } }');
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data?.apiKeys).toHaveLength(2);
  });

  it('a key without scopes keeps calling every endpoint', async () => {
    const web = await dashboard();
    const key = await created(web, {});
    expect(key.scopes).toBeNull();
    const answer = await sdk(key.key).chat.completions.create(hello);
    expect(answer.choices[0]?.message.role).toBe('assistant');
  });
});

describe('model scopes', () => {
  it('lists only the allowed models, serves them, and refuses another model with 403 naming it', async () => {
    const web = await dashboard();
    const key = await created(web, { models: ['tessera-fast-4k'] });
    const client = sdk(key.key);
    const listed = await client.models.list();
    expect(listed.data.map((m) => m.id)).toEqual(['tessera-fast-4k']);
    expect((await client.models.retrieve('tessera-fast-4k')).id).toBe('tessera-fast-4k');
    expect((await client.chat.completions.create(hello)).model).toBe('tessera-fast-4k');

    const err = await errorOf(client.chat.completions.create({ ...hello, model: 'tessera-reason-8k' }));
    expect(err.status).toBe(403);
    expect(err.code).toBe('permission_denied');
    expect(err.param).toBe('model');
    expect(err.message).toContain("'tessera-reason-8k'");
    const retrieve = await errorOf(client.models.retrieve('tessera-reason-8k'));
    expect(retrieve.status).toBe(403);
    expect(retrieve.code).toBe('permission_denied');
    // An unknown model is still a 404, as for any key.
    expect((await errorOf(client.models.retrieve('no-such-model'))).status).toBe(404);
  });
});

describe('expiry', () => {
  it('works until expiresAt, then 401 expired_api_key from the cache (openai SDK)', async () => {
    const web = await dashboard();
    const expiresAt = new Date(Date.now() + skippedMs + 60_000).toISOString();
    const key = await created(web, { expiresAt });
    expect(key.expiresAt).toBe(expiresAt);
    const client = sdk(key.key);
    expect((await client.models.list()).object).toBe('list');
    skippedMs += 61_000;
    const err = await errorOf(client.models.list());
    expect(err.status).toBe(401);
    expect(err.code).toBe('expired_api_key');
    expect(err.message).toContain(expiresAt.replace(/\.\d+Z$/, ''));
    expect(err.message).not.toContain(key.key);
    const listed = await web.query<ApiKeyView[]>('keys.list');
    expect(listed.data?.find((k) => k.id === key.id)?.state).toBe('expired');
  });

  it('a key created elsewhere and first seen after its expiry is refused the same way', async () => {
    const account = await createAccount(server);
    const plain = await createKey(server, account.id);
    const ok = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${plain.key}` } });
    expect(ok.status).toBe(200);
    const web = await dashboard();
    const key = await created(web, { expiresAt: new Date(Date.now() + skippedMs + 5_000).toISOString() });
    skippedMs += 6_000;
    const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('expired_api_key');
  });
});

describe('creating keys with settings: validation', () => {
  it('400 with the field for a past expiry, an unknown model, an unknown scope, an empty list', async () => {
    const web = await dashboard();
    const past = await web.mutation('keys.create', {
      name: 'k',
      expiresAt: new Date(Date.now() + skippedMs - 1_000).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.error?.data.fieldErrors?.expiresAt?.[0]).toMatch(/must be in the future/);
    const model = await web.mutation('keys.create', { name: 'k', models: ['gpt-nothing'] });
    expect(model.status).toBe(400);
    expect(model.error?.data.fieldErrors?.models?.[0]).toMatch(/Unknown model 'gpt-nothing'/);
    const scope = await web.mutation('keys.create', { name: 'k', scopes: ['admin'] });
    expect(scope.status).toBe(400);
    expect(Object.keys(scope.error?.data.fieldErrors ?? {})).toEqual(['scopes.0']);
    const empty = await web.mutation('keys.create', { name: 'k', scopes: [] });
    expect(empty.status).toBe(400);
    const badTime = await web.mutation('keys.create', { name: 'k', expiresAt: 'tomorrow' });
    expect(badTime.status).toBe(400);
    expect(badTime.error?.data.fieldErrors?.expiresAt?.[0]).toMatch(/ISO 8601/);
    expect((await web.query<ApiKeyView[]>('keys.list')).data).toEqual([]);
  });
});

describe('GraphQL reads the settings', () => {
  it('shows scopes, models, expiry and state of the caller’s keys', async () => {
    const account = await createAccount(server);
    const cookie = await sessionCookie(server, account.id);
    const web = new TrpcTestClient(server.url);
    web.cookie = cookie;
    const expiresAt = new Date(Date.now() + skippedMs + 3_600_000).toISOString();
    await created(web, { scopes: ['chat', 'models'], models: ['tessera-fast-4k'], expiresAt });
    const res = await gql<{ apiKeys: Record<string, unknown>[] }>(
      server,
      { cookie },
      '{ apiKeys { name scopes models expiresAt state requestsPerMinute tokenBudget { tokens period } } }',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.apiKeys).toEqual([
      {
        name: 'scoped',
        scopes: ['CHAT', 'MODELS'],
        models: ['tessera-fast-4k'],
        expiresAt,
        state: 'ACTIVE',
        requestsPerMinute: null,
        tokenBudget: null,
      },
    ]);
  });
});

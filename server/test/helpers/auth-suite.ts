import { expect, it } from 'vitest';
import type { RestRoute } from '../../src/rest/routes';
import { createAccountWithKey } from './fixtures';
import type { TestServer } from './server';

/** Fills `:params` with harmless sample values so that any route can be called. */
export function samplePath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, 'sample');
}

async function call(server: TestServer, route: RestRoute, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  return fetch(`${server.url}${samplePath(route.path)}`, {
    method: route.method.toUpperCase(),
    headers,
    ...(route.body && { body: '{}' }),
  });
}

async function expectError(res: Response, status: number, code: string | null): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error.code).toBe(code);
}

/** The authentication cases every authenticated REST endpoint must pass. */
export function authCases(getServer: () => TestServer, route: RestRoute): void {
  const label = `${route.method.toUpperCase()} ${route.path}`;

  it(`${label}: no Authorization header → 401`, async () => {
    await expectError(await call(getServer(), route), 401, 'missing_api_key');
  });

  it(`${label}: wrong scheme → 401`, async () => {
    const { key } = await createAccountWithKey(getServer());
    await expectError(await call(getServer(), route, `Basic ${key.key}`), 401, 'invalid_api_key');
  });

  it(`${label}: key broken by a space → 401 naming the key, not the scheme`, async () => {
    const { key } = await createAccountWithKey(getServer());
    const broken = `${key.key.slice(0, 12)} ${key.key.slice(12)}`;
    const res = await call(getServer(), route, `Bearer ${broken}`);
    const text = await res.clone().text();
    expect(text).not.toContain(key.key.slice(12));
    expect(text).toMatch(/API key in the Authorization header is malformed/);
    expect(text).not.toMatch(/Bearer scheme/);
    await expectError(res, 401, 'invalid_api_key');
  });

  it(`${label}: Bearer with no key → 401 missing_api_key`, async () => {
    await expectError(await call(getServer(), route, 'Bearer '), 401, 'missing_api_key');
  });

  it(`${label}: malformed key → 401, secret not echoed`, async () => {
    const res = await call(getServer(), route, 'Bearer sk-proj-NOT-A-TESSERA-KEY-1234567890');
    const text = await res.clone().text();
    expect(text).not.toContain('NOT-A-TESSERA-KEY');
    await expectError(res, 401, 'invalid_api_key');
  });

  it(`${label}: unknown key → 401`, async () => {
    await expectError(
      await call(getServer(), route, `Bearer sk_live_${'Z'.repeat(32)}`),
      401,
      'invalid_api_key',
    );
  });

  it(`${label}: revoked key → 401`, async () => {
    const server = getServer();
    const { account, key } = await createAccountWithKey(server);
    const { revokeKey } = await import('../../src/modules/keys');
    await revokeKey({
      ctx: server.services.ctx,
      accountId: account.id,
      keyId: key.id,
      onRevoked: (h) => server.services.keys.forget(h),
    });
    await expectError(await call(server, route, `Bearer ${key.key}`), 401, 'invalid_api_key');
  });
}

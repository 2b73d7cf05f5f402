import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_SECURITY_HEADERS } from '../../src/rest/middleware/security-headers';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

describe('security headers, CORS and cookies', () => {
  it('sends helmet headers and no x-powered-by', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('strict-transport-security')).toBeTruthy();
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('the public API answers with the strict API set, through the direct dispatch and through Express alike', async () => {
    const { key } = await createAccountWithKey(server, { plan: 'pro', kind: 'test' });
    const answers = [
      await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'hi' }] }),
      }),
      await fetch(`${server.url}/v1/models/tessera-fast-4k`, {
        headers: { authorization: `Bearer ${key.key}` },
      }),
      await fetch(`${server.url}/v1/no-such-thing`),
      await fetch(`${server.url}/api/search`, { method: 'POST' }),
    ];
    for (const res of answers) {
      const seen = Object.fromEntries(API_SECURITY_HEADERS.map(([name]) => [name, res.headers.get(name)]));
      expect(seen, res.url).toEqual(Object.fromEntries(API_SECURITY_HEADERS));
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      // Headers that only mean something to a rendered page are not sent with JSON.
      expect(res.headers.get('x-dns-prefetch-control')).toBeNull();
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
    expect(answers.map((r) => r.status)).toEqual([200, 200, 404, 401]);
  });

  it('grants no cross-origin access to the dashboard procedures', async () => {
    const preflight = await fetch(`${server.url}/trpc/keys.create`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-tessera-csrf',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('marks the session cookie Secure when the request came over TLS through a trusted proxy', async () => {
    const res = await fetch(`${server.url}/trpc/auth.signUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ email: `tls-${Date.now()}@example.com`, password: 'a long enough password' }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });
});

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/env';
import { CORS_EXPOSED_HEADERS } from '../../src/rest/middleware/cors';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const APP = 'https://app.example.com';
const METRICS_TOKEN = 'metrics-token-0123456789';
/** What a browser sends before the openai SDK's chat call (lower-cased, sorted, no spaces). */
const SDK_HEADERS =
  'authorization,content-type,idempotency-key,openai-organization,openai-project,x-stainless-arch,' +
  'x-stainless-lang,x-stainless-os,x-stainless-package-version,x-stainless-retry-count,x-stainless-runtime,' +
  'x-stainless-runtime-version,x-stainless-timeout';
const CHAT = { model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'Explain glaciers' }] };

function preflight(server: TestServer, path: string, origin = APP, headers = SDK_HEADERS, method = 'POST') {
  return fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

function post(server: TestServer, path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function corsHeaderNames(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

/** Every header of `res` a client reads (ours, beyond the safelisted and the security ones) is exposed. */
function expectReadableHeadersExposed(res: Response): void {
  const exposed = new Set(res.headers.get('access-control-expose-headers')?.split(', '));
  const readable = [...res.headers.keys()].filter(
    (name) =>
      /^(x-|retry-after|openai-)/.test(name) && !['x-content-type-options', 'x-frame-options'].includes(name),
  );
  expect(readable.length).toBeGreaterThan(0);
  for (const name of readable) expect(exposed, name).toContain(name);
}

describe('CORS on the public API by default: no origin is granted', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIMULATOR_TOKEN_DELAY_MS: '0' } });
    key = (await createAccountWithKey(server)).key.key;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a preflight 204 without a grant, so a browser refuses the call', async () => {
    const res = await preflight(server, '/v1/chat/completions');
    expect(res.status).toBe(204);
    expect(corsHeaderNames(res)).toEqual([]);
  });

  it("gives a page's request no CORS headers; a server's request is answered as before", async () => {
    const fromPage = await post(server, '/v1/chat/completions', CHAT, {
      origin: APP,
      authorization: `Bearer ${key}`,
    });
    expect(corsHeaderNames(fromPage)).toEqual([]);
    expect(fromPage.headers.get('vary')).toBeNull();
    await fromPage.arrayBuffer();
    const fromServer = await post(server, '/v1/chat/completions', CHAT, { authorization: `Bearer ${key}` });
    expect(fromServer.status).toBe(200);
    expect(corsHeaderNames(fromServer)).toEqual([]);
  });
});

describe('CORS on the public API, any origin (CORS_ORIGINS=*)', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({
      env: { SIMULATOR_TOKEN_DELAY_MS: '0', BODY_LIMIT_BYTES: '65536', METRICS_TOKEN, CORS_ORIGINS: '*' },
    });
    key = (await createAccountWithKey(server)).key.key;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers the openai SDK's preflight with 204 and no key, and neither meters nor limits it", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await preflight(server, '/v1/chat/completions');
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe(SDK_HEADERS);
      expect(res.headers.get('access-control-max-age')).toBe('86400');
      expect(res.headers.get('vary')).toBe('origin, access-control-request-headers');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    const metrics = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(await metrics.text()).not.toMatch(/tessera_http_requests_total\{[^}]*method="OPTIONS"/);
  });

  it('answers preflights on every API path, with parameters or unknown, rather than 404 or 405', async () => {
    for (const path of [
      '/v1/models',
      '/v1/models/tessera-fast-4k',
      '/api/documents/doc_1',
      '/api/search',
      '/v1/nope',
    ]) {
      const res = await preflight(
        server,
        path,
        APP,
        'authorization',
        path.startsWith('/v1/models') ? 'GET' : 'POST',
      );
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-headers'), path).toBe('authorization');
    }
  });

  it('allows only well-formed requested header names', async () => {
    for (const bad of ['authorization, x-a b', 'x-a;x-b', 'x-é', `x-${'a'.repeat(5000)}`]) {
      const res = await preflight(server, '/v1/chat/completions', APP, bad);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-headers')).toBeNull();
    }
    const spaced = await preflight(server, '/v1/chat/completions', APP, 'authorization, content-type');
    expect(spaced.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('lets a page read an answer and the headers the SDK reads (the openai SDK, with an Origin)', async () => {
    const client = new OpenAI({
      apiKey: key,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { origin: APP },
    });
    const { data, response } = await client.chat.completions
      .create({ model: 'tessera-fast-4k', messages: [{ role: 'user', content: 'Explain glaciers' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBeTruthy();
    expectReadableHeadersExposed(response);

    const models = await fetch(`${server.url}/v1/models`, {
      headers: { origin: APP, authorization: `Bearer ${key}` },
    });
    expect(models.status).toBe(200);
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('streams with the headers', async () => {
    const res = await post(
      server,
      '/v1/chat/completions',
      { ...CHAT, stream: true },
      {
        origin: APP,
        authorization: `Bearer ${key}`,
      },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS);
    expect((await res.text()).trimEnd()).toMatch(/data: \[DONE\]$/);
  });

  it('puts them on errors too: 401, 404, 405, 400, 413', async () => {
    const origin = { origin: APP };
    const auth = { ...origin, authorization: `Bearer ${key}` };
    const cases: [Promise<Response>, number][] = [
      [post(server, '/v1/chat/completions', CHAT, { ...origin, authorization: 'Bearer sk_test_nope' }), 401],
      [post(server, '/v1/chat/completions', CHAT, origin), 401],
      [fetch(`${server.url}/v1/nope`, { headers: auth }), 404],
      [fetch(`${server.url}/v1/chat/completions`, { headers: auth }), 405],
      [post(server, '/v1/chat/completions', '{"model":', auth), 400],
      [post(server, '/api/search', { query: 'x'.repeat(70_000) }, auth), 413],
      [post(server, '/V1/Chat/Completions', CHAT, { ...origin, authorization: 'Bearer sk_test_nope' }), 401],
    ];
    for (const [pending, status] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect((await res.json()) as object).toHaveProperty('error');
      expect(res.headers.get('access-control-allow-origin'), String(status)).toBe('*');
      expect(res.headers.get('access-control-expose-headers'), String(status)).toBe(CORS_EXPOSED_HEADERS);
    }
  });

  it('adds nothing when the request names no Origin (server-to-server clients)', async () => {
    const res = await post(server, '/v1/chat/completions', CHAT, { authorization: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(corsHeaderNames(res)).toEqual([]);
    expect(res.headers.get('vary')).toBeNull();
    const error = await post(server, '/v1/chat/completions', CHAT, {});
    expect(error.status).toBe(401);
    expect(corsHeaderNames(error)).toEqual([]);
  });

  it('never reaches the surfaces the session cookie authenticates, nor the rest of the site', async () => {
    const playgroundPaths = ['/api/playground/chat/completions', '/API/Playground/chat/completions'];
    for (const path of playgroundPaths) {
      const pre = await preflight(server, path, APP, 'content-type,x-tessera-csrf');
      expect(pre.status, path).toBe(405);
      expect(corsHeaderNames(pre), path).toEqual([]);
      const res = await post(server, path, CHAT, { origin: APP, 'x-tessera-csrf': '1' });
      expect(res.status, path).toBe(401);
      expect(corsHeaderNames(res), path).toEqual([]);
    }
    for (const path of ['/graphql', '/trpc/auth.me', '/healthz', '/openapi.json']) {
      const pre = await preflight(server, path, APP, 'content-type');
      expect(corsHeaderNames(pre), path).toEqual([]);
      const res = await post(server, path, { query: '{ __typename }' }, { origin: APP });
      expect(corsHeaderNames(res), path).toEqual([]);
    }
  });
});

describe('CORS on the public API, a list of origins (CORS_ORIGINS)', () => {
  const OTHER = 'http://localhost:5173';
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({
      env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '2', CORS_ORIGINS: `${APP}, ${OTHER}/` },
    });
    key = (await createAccountWithKey(server)).key.key;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a listed origin by name, and an unlisted one without CORS headers', async () => {
    for (const origin of [APP, OTHER]) {
      const res = await preflight(server, '/v1/chat/completions', origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-headers')).toBe(SDK_HEADERS);
      expect(res.headers.get('vary')).toBe('origin, access-control-request-headers');
    }
    for (const origin of [
      'https://evil.example.com',
      'https://app.example.com.evil.com',
      'null',
      'HTTPS://APP.EXAMPLE.COM',
    ]) {
      const res = await preflight(server, '/v1/chat/completions', origin);
      expect(res.status, origin).toBe(204);
      expect(corsHeaderNames(res), origin).toEqual([]);
    }
  });

  it('echoes a listed origin on answers, with vary: origin; an unlisted one gets none', async () => {
    const listed = await post(server, '/v1/chat/completions', CHAT, {
      origin: APP,
      authorization: `Bearer ${key}`,
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(listed.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS);
    expect(listed.headers.get('vary')).toBe('origin');

    const unlisted = await post(server, '/v1/chat/completions', CHAT, {
      origin: 'https://evil.example.com',
      authorization: `Bearer ${key}`,
    });
    expect(corsHeaderNames(unlisted)).toEqual([]);
    expect(unlisted.headers.get('vary')).toBe('origin');
  });

  it('puts them on a 429, whose retry headers are exposed; preflights are never limited', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const res = await post(server, '/v1/chat/completions', CHAT, {
        origin: APP,
        authorization: `Bearer ${key}`,
      });
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited?.status).toBe(429);
    if (!limited) return;
    expect(limited.headers.get('access-control-allow-origin')).toBe(APP);
    expect(limited.headers.get('retry-after-ms')).toBeTruthy();
    expectReadableHeadersExposed(limited);
    const pre = await preflight(server, '/v1/chat/completions');
    expect(pre.status).toBe(204);
  });
});

describe('CORS_ORIGINS', () => {
  const parse = (value?: string) => parseEnv(value === undefined ? {} : { CORS_ORIGINS: value }).CORS_ORIGINS;

  it('grants no origin by default; * or a list is kept as browsers write origins', () => {
    expect(parse()).toBeUndefined();
    expect(parseEnv({ CORS_ORIGINS: '' }).CORS_ORIGINS).toBeUndefined();
    expect(parse(' * ')).toBe('*');
    expect(parse('https://App.Example.com, http://localhost:5173/,https://example.com:443,')).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
      'https://example.com',
    ]);
  });

  it('refuses what is not an origin', () => {
    for (const bad of [
      'app.example.com',
      'https://example.com/path',
      'https://*.example.com',
      'ftp://x.y',
      '*, https://a.b',
      ',',
    ]) {
      expect(() => parse(bad), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});

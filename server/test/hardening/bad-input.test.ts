import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest';
import type { RestRoute } from '../../src/rest/routes';
import { samplePath } from '../helpers/auth-suite';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;
let routes: RestRoute[];
beforeAll(async () => {
  // A generous limit keeps the rate limiter out of the way: this suite is about input, not quotas.
  server = await startTestServer({
    env: { PLAN_FREE_RPM: '1000000', BODY_LIMIT_BYTES: '65536', SIMULATOR_TOKEN_DELAY_MS: '0' },
  });
  key = (await createAccountWithKey(server)).key.key;
  routes = restRoutes(server.services);
});
afterAll(async () => {
  await server?.close();
});

/** encodeURIComponent refuses lone surrogates; a URL cannot carry them anyway. */
const enc = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

/** Any answer must be a success or a documented 4xx with OpenAI's error body: never a 5xx, never a hang. */
async function expectHandled(res: Response, context: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${context} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers.get('x-request-id'), context).toBeTruthy();
  if (res.status >= 400) {
    const body = JSON.parse(text) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort(), context).toEqual(['code', 'message', 'param', 'type']);
    expect(text, context).not.toMatch(/\bat .+\.(ts|js):\d+/);
  }
}

function send(
  route: RestRoute,
  body: string | Uint8Array,
  contentType = 'application/json',
): Promise<Response> {
  return fetch(`${server.url}${samplePath(route.path)}`, {
    method: route.method.toUpperCase(),
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(20_000),
  });
}

const oddStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom('', 'NaN', '-1', '1e309', '\u0000', '\uD800', '"', '<script>', '../../etc/passwd', '%00'),
);
const oddValues = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308),
    oddStrings,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(oddStrings, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('bad input on every REST endpoint', () => {
  it('random JSON bodies', async () => {
    for (const route of routes.filter((r) => r.body)) {
      await fc.assert(
        fc.asyncProperty(oddValues, async (value) => {
          await expectHandled(
            await send(route, JSON.stringify(value)),
            `${route.path} ${JSON.stringify(value)}`,
          );
        }),
        { numRuns: RUNS },
      );
    }
  });

  it('random objects with plausible field names of the wrong types', async () => {
    const fields = fc.constantFrom(
      'model',
      'messages',
      'stream',
      'max_tokens',
      'temperature',
      'n',
      'stop',
      'code',
      'language',
      'analysis_type',
      'query',
      'limit',
      'cursor',
      'filter',
      'documents',
      'id',
      'text',
      'metadata',
      'collection',
    );
    for (const route of routes.filter((r) => r.body)) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fields, oddValues, { maxKeys: 6 }), async (value) => {
          await expectHandled(
            await send(route, JSON.stringify(value)),
            `${route.path} ${JSON.stringify(value)}`,
          );
        }),
        { numRuns: RUNS },
      );
    }
  });

  it('well-formed chat requests whose text is anything: odd Unicode, special-token spellings, endless words', async () => {
    const chat = routes.find((r) => r.path === '/v1/chat/completions');
    if (!chat) throw new Error('no chat route');
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.constantFrom('<|endoftext|>', '<|endofprompt|>', '<|im_start|>user', '<|fim_prefix|>'),
      // One piece for the BPE: the merge that once took minutes for 30,000 letters.
      fc
        .tuple(fc.constantFrom('x', 'ab', 'é', '日', '9', ' '), fc.integer({ min: 1, max: 8_000 }))
        .map(([unit, n]) => unit.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('tessera-fast-4k', 'tessera-long-100k'),
        fc.boolean(),
        async (parts, model, stream) => {
          const body = JSON.stringify({
            model,
            messages: parts.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content })),
            stop: parts[0]?.slice(0, 8) || undefined,
            max_tokens: 16,
            stream,
          });
          await expectHandled(await send(chat, body), `${chat.path} ${body.slice(0, 300)}`);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('truncated, non-UTF-8, deeply nested and oddly typed bodies', async () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const cases: [string | Uint8Array, string][] = [
      ['{"model": "x", "messages": [', 'application/json'],
      [new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 'application/json'],
      [deep, 'application/json'],
      [`{"a":${deep}}`, 'application/json'],
      ['{"a":1,"a":2}', 'application/json'],
      ['', 'application/json'],
      ['null', 'application/json'],
      ['[]', 'application/json'],
      ['x'.repeat(70_000), 'application/json'],
      ['{"a":1}', 'text/plain'],
      ['{"a":1}', 'application/json; charset=latin1'],
      ['<xml/>', 'application/xml'],
    ];
    for (const route of routes.filter((r) => r.body)) {
      for (const [body, type] of cases) {
        await expectHandled(
          await send(route, body, type),
          `${route.path} ${type} ${String(body).slice(0, 40)}`,
        );
      }
    }
  });

  it('random paths and query strings on GET routes', async () => {
    for (const route of routes.filter((r) => r.method === 'get')) {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 40 }), oddStrings, async (segment, query) => {
          const path = route.path.replace(/:([A-Za-z_]+)/g, enc(segment) || 'x');
          const res = await fetch(`${server.url}${path}?q=${enc(query)}&limit=${enc(query)}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          await expectHandled(res, `${path} ${query}`);
        }),
        { numRuns: RUNS },
      );
    }
  });

  it('header abuse: huge, repeated and odd Authorization headers; odd methods', async () => {
    const target = `${server.url}/v1/models`;
    const attempts: [string, RequestInit][] = [
      ['huge auth', { headers: { authorization: `Bearer ${'a'.repeat(12_000)}` } }],
      [
        'repeated auth',
        {
          headers: [
            ['authorization', `Bearer ${key}`],
            ['authorization', `Bearer ${key}`],
          ],
        },
      ],
      ['empty bearer', { headers: { authorization: 'Bearer ' } }],
      ['lowercase scheme', { headers: { authorization: `bearer ${key}` } }],
      ['tabs', { headers: { authorization: `Bearer\t${key}` } }],
      ['PATCH', { method: 'PATCH', headers: { authorization: `Bearer ${key}` } }],
      ['OPTIONS', { method: 'OPTIONS', headers: { authorization: `Bearer ${key}` } }],
    ];
    for (const [label, init] of attempts) await expectHandled(await fetch(target, init), label);
    // Headers past Node's 16 KB limit are refused by the HTTP parser itself with a 431, never a crash.
    const giant = await fetch(target, { headers: { authorization: `Bearer ${'a'.repeat(40_000)}` } });
    expect(giant.status).toBe(431);
  });

  it('is still healthy afterwards', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(
      (await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
  });
});

import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE } from '../../src/graphql';
import { sessionCookie } from '../graphql-helpers';
import { createAccountWithKey } from '../helpers/fixtures';
import { LogCapture } from '../helpers/log-capture';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Generated bad input against POST /graphql: random operations over the real schema (wrong argument types,
 * huge numbers, long strings, deep nesting, unknown fields, aliases past the cost limit), random variables,
 * random request bodies and raw bytes. Every answer must be a GraphQL error body with a documented
 * `extensions.code` (or data), never a 5xx or an internal error, and the server must stay healthy.
 */
const logs = new LogCapture();
let server: TestServer;
let key: string;
let cookie: string;
beforeAll(async () => {
  server = await startTestServer({ env: { PLAN_FREE_RPM: '1000000', LOG_LEVEL: 'error' }, logs });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  cookie = await sessionCookie(server, created.account.id);
});
afterAll(async () => {
  await server?.close();
});

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'));

/** The codes ARCHITECTURE.md documents for /graphql; INTERNAL_SERVER_ERROR is deliberately absent. */
const DOCUMENTED_CODES = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHENTICATED',
  'NOT_FOUND',
  'RATE_LIMITED',
]);

interface Sent {
  status: number;
  body: { data?: unknown; errors?: { message?: unknown; extensions?: { code?: unknown } }[] };
}

async function post(
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  auth: Record<string, string> = { authorization: `Bearer ${key}` },
): Promise<Response> {
  return fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...headers },
    body,
    signal: AbortSignal.timeout(20_000),
  });
}

/** A documented answer: a 4xx or 200 with `errors` of documented codes (or `data`), no stack, no 5xx. */
async function expectHandled(res: Response, context: string): Promise<Sent> {
  const text = await res.text();
  const where = `${context.slice(0, 400)} → ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  expect([200, 400, 401, 413, 415], where).toContain(res.status);
  expect(res.headers.get('x-request-id'), where).toBeTruthy();
  expect(text, where).not.toMatch(/\bat .+\.(ts|js):\d+|stacktrace/i);
  const body = JSON.parse(text) as Sent['body'];
  if (body.errors !== undefined) {
    expect(body.errors.length, where).toBeGreaterThan(0);
    for (const e of body.errors) {
      expect(typeof e.message, where).toBe('string');
      expect(DOCUMENTED_CODES.has(String(e.extensions?.code)), where).toBe(true);
    }
  } else {
    expect(res.status, where).toBe(200);
    expect(typeof body.data, where).toBe('object');
  }
  return { status: res.status, body };
}

// ---- values: right, wrong and extreme, as GraphQL literals --------------------------------------------------

const hugeInt = fc.constantFrom('2147483648', '-2147483649', '99999999999999999999999', '1e309', '-0', '0');
const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', 'NaN', '-1', '\\u0000', '\\uD800', '2026-13-45T99:99:99Z', '+275760-09-13T00:00:00Z'),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const quoted = (s: string) => JSON.stringify(s).replace(/\\\\u/g, '\\u');

function literal(g: fc.GeneratorValue, type: GraphQLInputType | undefined, depth: number): string {
  const choice = g(fc.nat, 9);
  if (choice === 0 || depth > 4) return g(fc.constantFrom, 'null', 'true', '1.5', '$undeclared', 'NOPE');
  if (choice === 1) return g(() => hugeInt);
  if (choice === 2) return quoted(g(() => oddString));
  if (choice === 3)
    return `[${Array.from({ length: g(fc.nat, 4) }, () => literal(g, undefined, depth + 1)).join(', ')}]`;
  if (choice === 4)
    return `{ a: ${literal(g, undefined, depth + 1)}, b: ${literal(g, undefined, depth + 1)} }`;
  if (choice === 5) return `$v${g(fc.nat, 3)}`;
  // A plausible value of the declared type.
  const named = type ? getNamedType(type) : undefined;
  if (named && isEnumType(named)) return g(fc.constantFrom, ...named.getValues().map((v) => v.name));
  if (named && isScalarType(named) && named.name === 'Int')
    return String(g(fc.integer, { min: -5, max: 200 }));
  if (named && isScalarType(named) && named.name === 'DateTime')
    return quoted(new Date(g(fc.integer, { min: 0, max: 4_102_444_800_000 })).toISOString());
  return quoted(g(fc.string, { maxLength: 12 }));
}

function argumentsOf(g: fc.GeneratorValue, args: readonly GraphQLArgument[]): string {
  const parts: string[] = [];
  for (const arg of args) if (g(fc.boolean)) parts.push(`${arg.name}: ${literal(g, arg.type, 0)}`);
  if (g(fc.nat, 6) === 0)
    parts.push(`${g(fc.constantFrom, 'nope', 'first', 'keyId', 'period')}: ${literal(g, undefined, 0)}`);
  return parts.length === 0 ? '' : `(${parts.join(', ')})`;
}

// ---- operations over the real schema ------------------------------------------------------------------------

function selectionSet(g: fc.GeneratorValue, typeName: string, depth: number): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) return '';
  const fields = Object.values(type.getFields()) as GraphQLField<unknown, unknown>[];
  const count = g(fc.integer, { min: 1, max: depth < 2 ? 5 : 2 });
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const pick = g(fc.nat, fields.length + 2);
    if (pick === fields.length) {
      parts.push(g(fc.constantFrom, 'nope', '__typename', '__schema { types { name } }', 'password', 'key'));
      continue;
    }
    const field = fields[pick % fields.length];
    if (!field) continue;
    const alias = g(fc.nat, 4) === 0 ? `a${g(fc.nat, 1000)}: ` : '';
    const inner = getNamedType(field.type);
    const sub = isObjectType(inner) || g(fc.nat, 8) === 0 ? subSelection(g, inner.name, depth) : '';
    parts.push(`${alias}${field.name}${argumentsOf(g, field.args)}${sub}`);
  }
  return `{ ${parts.join(' ')} }`;
}

function subSelection(g: fc.GeneratorValue, typeName: string, depth: number): string {
  // Sometimes missing (a validation error), sometimes far past the depth limit.
  if (g(fc.nat, 12) === 0) return '';
  if (depth > 13) return '{ __typename }';
  return ` ${selectionSet(g, typeName, depth + 1)}`;
}

const variableTypes = [
  'ID',
  'Int',
  'String',
  'DateTime',
  'UsagePeriod!',
  'KeyMode',
  '[ID!]',
  'Boolean',
  'Nope',
];
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(1e308, -1e308, 2 ** 53, 2 ** 31, -(2 ** 31) - 1, 0.5, '', 'NaN', '\u0000', '\uD800'),
  fc.nat({ max: 200_000 }).map((n) => 'k'.repeat(n)),
  fc.integer({ min: 1, max: 400 }).map((n) => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`) as unknown),
);

function operation(g: fc.GeneratorValue): { query: string; variables: Record<string, unknown> } {
  const declared = Array.from(
    { length: g(fc.nat, 3) },
    (_, i) => `$v${i}: ${g(fc.constantFrom, ...variableTypes)}`,
  );
  const head = g(fc.constantFrom, 'query', 'query Q', 'mutation', 'subscription', '');
  const vars = declared.length > 0 && head !== '' ? `(${declared.join(', ')})` : '';
  let body = selectionSet(g, 'Query', 0);
  if (g(fc.nat, 5) === 0)
    body = `{ ${Array.from({ length: g(fc.integer, { min: 2, max: 200 }) }, (_, i) => `r${i}: usage { recentErrors(first: 100) { edges { cursor } } }`).join(' ')} }`;
  if (g(fc.nat, 6) === 0) body = `${body} fragment F on Query { viewer { plan } }`;
  const variables: Record<string, unknown> = {};
  for (let i = 0; i < g(fc.nat, 4); i += 1) variables[`v${i}`] = g(() => jsonValue);
  return { query: `${head}${vars} ${body}`, variables };
}

// ---- random documents and bodies ----------------------------------------------------------------------------

const token = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '(',
    ')',
    '[',
    ']',
    ':',
    '$',
    '!',
    '...',
    '@include(if: true)',
    '@skip',
    '=',
    '|',
  ),
  fc.constantFrom('query', 'mutation', 'fragment F on Query', 'on', 'viewer', 'usage', 'apiKeys', 'models'),
  fc.constantFrom('__schema', '__type(name: "Query")', 'types', 'fields', 'ofType', 'summary', 'first: 100'),
  fc.constantFrom('"str', '"""block', '#comment\n', '1e999', '0x1F', '\u0000', '\uFEFF', '\u2028'),
  fc.string({ maxLength: 8 }),
);
const randomDocument = fc.array(token, { maxLength: 80 }).map((t) => t.join(' '));

describe('GraphQL bad input (property-based)', () => {
  it('random operations over the schema: wrong types, huge values, unknown fields, depth and cost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        const op = operation(g);
        await expectHandled(await post(JSON.stringify(op)), JSON.stringify(op));
      }),
      { numRuns: RUNS * 3 },
    );
  }, 120_000);

  it('random token soup as the query, with and without variables and an operation name', async () => {
    await fc.assert(
      fc.asyncProperty(
        randomDocument,
        fc.option(fc.dictionary(fc.string({ maxLength: 4 }), jsonValue, { maxKeys: 3 })),
        fc.option(fc.oneof(fc.string({ maxLength: 10 }), fc.integer())),
        async (query, variables, operationName) => {
          const body = JSON.stringify({ query, variables, operationName });
          await expectHandled(await post(body), body);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('random JSON bodies: batches, wrong shapes, extensions and persisted-query hashes', async () => {
    const shaped = fc.record(
      {
        query: fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.jsonValue({ maxDepth: 2 }),
          fc.constant('{ viewer { plan } }'),
        ),
        variables: fc.jsonValue({ maxDepth: 3 }),
        operationName: fc.jsonValue({ maxDepth: 1 }),
        extensions: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record({ persistedQuery: fc.record({ version: fc.integer(), sha256Hash: fc.string() }) }),
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(shaped, fc.array(shaped, { maxLength: 5 }), fc.jsonValue({ maxDepth: 4 }));
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const text = JSON.stringify(value);
        await expectHandled(await post(text), text);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('raw bytes: truncated JSON, invalid UTF-8, other content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.string({ maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
          fc
            .nat({ max: 30 })
            .map((n) =>
              new TextEncoder().encode('{"query":"{ viewer { plan } }","variables":{}}'.slice(0, n)),
            ),
        ),
        fc.constantFrom(
          'application/json',
          'application/json; charset=latin1',
          'text/plain',
          'application/graphql',
        ),
        async (bytes, contentType) => {
          await expectHandled(
            await post(bytes, { 'content-type': contentType }),
            `${contentType} ${bytes.length} bytes`,
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});

describe('GraphQL bad input (hand-written)', () => {
  const q = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });

  it('deep nesting is refused before parsing (the parser would overflow the stack)', async () => {
    for (const [document, label] of [
      [`{${'viewer{'.repeat(5000)}plan${'}'.repeat(5001)}`, 'selections'],
      [`{ usage(keyId: ${'['.repeat(50_000)}${']'.repeat(50_000)}) { from } }`, 'list literal'],
      [`query($v: ${'['.repeat(3000)}ID${']'.repeat(3000)}) { viewer { plan } }`, 'type reference'],
    ] as const) {
      const r = await expectHandled(await post(q(document)), label);
      expect(r.status, label).toBe(400);
      expect(r.body.errors?.[0]?.extensions?.code, label).toBe('GRAPHQL_PARSE_FAILED');
    }
    // Brackets inside strings and comments are not nesting.
    const fine = await expectHandled(
      await post(q(`# ${'{'.repeat(500)}\n{ viewer { plan } __type(name: "${'['.repeat(500)}") { name } }`)),
      'brackets in a comment and a string',
    );
    expect(fine.body.errors).toBeUndefined();
  });

  it('mutations and subscriptions are bad input on this read-only schema', async () => {
    for (const op of ['mutation { viewer { plan } }', 'subscription { viewer { plan } }']) {
      const r = await expectHandled(await post(q(op)), op);
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0]?.message).toMatch(/read-only/);
    }
  });

  it('key ids that no database column can hold are BAD_USER_INPUT, not a failed query', async () => {
    for (const keyId of ['a\u0000b', 'k'.repeat(500_000), '\uD800', '', 'key with spaces']) {
      const r = await expectHandled(
        await post(q('query($k: ID) { usage(keyId: $k) { summary { totalRequests } } }', { k: keyId })),
        `keyId ${JSON.stringify(keyId.slice(0, 20))}`,
      );
      expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('batching, persisted-query hashes and too many tokens are refused plainly', async () => {
    const batch = await expectHandled(
      await post(JSON.stringify([{ query: '{ viewer { plan } }' }])),
      'batch',
    );
    expect(batch.status).toBe(400);
    const apq = await expectHandled(
      await post(JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'ab' } } })),
      'persisted query',
    );
    expect(apq.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    const many = await expectHandled(await post(q(`{ ${'__typename '.repeat(6000)}}`)), 'tokens');
    expect(many.body.errors?.[0]?.message).toMatch(/more th.t 5000 tokens/);
  });

  it('introspection: the explorer full query passes, amplification by aliases does not', async () => {
    const full = await expectHandled(
      await post(
        q(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, inputValueDeprecation: true })),
        {},
        { cookie },
      ),
      'GraphiQL introspection',
    );
    expect(full.body.errors).toBeUndefined();
    expect(JSON.stringify(full.body.data)).toContain('"name":"Usage"');
    const aliases = Array.from(
      { length: 50 },
      (_, i) => `s${i}: __schema { types { fields { name } } }`,
    ).join(' ');
    const amplified = await expectHandled(await post(q(`{ ${aliases} }`)), 'introspection aliases');
    expect(amplified.status).toBe(400);
    expect(amplified.body.errors?.[0]?.message).toMatch(/__schema or __type 50 times/);
    const cycle = `{ __type(name: "Query") { fields { type { fields { type { fields { type { fields { type { fields { type { name } } } } } } } } } } } }`;
    const deep = await expectHandled(await post(q(cycle)), 'type cycle');
    // graphql-js's own rule (MaxIntrospectionDepthRule) or ours, whichever sees it first.
    expect(deep.body.errors?.[0]?.message).toMatch(/levels deep|introspection depth/);
  });

  it('other methods and GET without the preflight header get a GraphQL error body', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ viewer { plan } }')}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
      });
      await expectHandled(res, method);
    }
    const deepGet = await fetch(
      `${server.url}/graphql?query=${encodeURIComponent(`{${'viewer{'.repeat(300)}${'}'.repeat(301)}`)}`,
      { headers: { authorization: `Bearer ${key}`, 'apollo-require-preflight': '1' } },
    );
    expect((await expectHandled(deepGet, 'deep GET')).body.errors?.[0]?.extensions?.code).toBe(
      'GRAPHQL_PARSE_FAILED',
    );
  });
});

describe('after the GraphQL fuzz', () => {
  it('the server is healthy, answers a normal query, and logged no internal error', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ok = await expectHandled(
      await post(JSON.stringify({ query: '{ viewer { plan } }' })),
      'normal query',
    );
    expect(ok.body).toEqual({ data: { viewer: { plan: 'FREE' } } });
    // Unknown errors are logged at error level (graphql/errors.ts): none may have happened.
    expect(logs.entries().filter((e) => Number(e.level) >= 50)).toEqual([]);
  });
});

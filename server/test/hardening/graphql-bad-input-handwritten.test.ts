/** Hand-written bad input against POST /graphql: deep nesting, mutations, odd key ids, batching, introspection, other methods. */
import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGraphqlBadInputSuite } from '../helpers/graphql-bad-input-suite';
import type { TestServer } from '../helpers/server';

const suite = useGraphqlBadInputSuite();
const { post, expectHandled } = suite;
let server: TestServer;
let key: string;
let cookie: string;
beforeAll(() => {
  ({ server, key, cookie } = suite);
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

describe('after the hand-written bad input', () => {
  it('the server is healthy, answers a normal query, and logged no internal error', async () => {
    await suite.expectHealthy();
  });
});

/** Generated bad input against POST /graphql: random operations over the real schema, variables, bodies and raw bytes; the server stays healthy. */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { describe, it } from 'vitest';
import { SCHEMA_FILE } from '../../src/graphql';
import { useGraphqlBadInputSuite } from '../helpers/graphql-bad-input-suite';

/**
 * The operations have wrong argument types, huge numbers, long strings, deep nesting, unknown fields and aliases
 * past the cost limit; what every answer must be is in helpers/graphql-bad-input-suite.ts.
 */
const suite = useGraphqlBadInputSuite();
const { post, expectHandled } = suite;

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'));

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

describe('after the GraphQL fuzz', () => {
  it('the server is healthy, answers a normal query, and logged no internal error', async () => {
    await suite.expectHealthy();
  });
});

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors';
import { jsonValueFor, valueSourceFrom } from './simulator-json';
import { checkable } from './simulator-json-pattern';

// Ajv is CommonJS: under ESM its class may arrive as the module's `default`.
const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

const PROMPTS = [
  'What is the weather in Paris and Tokyo for 3 days?',
  'book 2 tickets',
  'x',
  'Zürich, Ürümqi and São Paulo: 12.5 or -4 or 1000000',
  'list the seven wonders of the ancient world in order of age please',
];

const SCHEMAS: Record<string, unknown>[] = [
  { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
  {
    type: 'object',
    properties: {
      n: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 3 },
      m: { type: 'integer', minimum: -10, maximum: -5, multipleOf: 2 },
      x: { type: 'number', minimum: 0.1, maximum: 0.2 },
      y: { type: 'number', exclusiveMinimum: 5 },
      z: { type: 'number', multipleOf: 0.01, minimum: 1, maximum: 2 },
      big: { type: 'integer', minimum: 1_000_000 },
    },
    required: ['n', 'm', 'x', 'y', 'z', 'big'],
  },
  {
    type: 'object',
    properties: {
      s: { type: 'string', minLength: 30, maxLength: 35 },
      t: { type: 'string', maxLength: 1 },
      f: { type: 'string', format: 'date-time' },
      u: { type: 'string', format: 'uuid' },
      h: { type: 'string', format: 'hostname' },
      w: { type: 'string', format: 'uri' },
      ip: { type: 'string', format: 'ipv4' },
      ip6: { type: 'string', format: 'ipv6' },
      tm: { type: 'string', format: 'time' },
      d: { type: 'string', format: 'duration' },
    },
    required: ['s', 't', 'f', 'u', 'h', 'w', 'ip', 'ip6', 'tm', 'd'],
  },
  {
    type: 'object',
    properties: {
      list: { type: 'array', items: { enum: [1, 2, 3] }, minItems: 3, uniqueItems: true },
      tuple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: false },
      empty: { type: 'array', maxItems: 0 },
      nullable: { anyOf: [{ type: 'null' }, { type: 'object', properties: { k: { const: 'v' } } }] },
      either: { oneOf: [{ type: 'integer', maximum: -1 }, { type: 'string' }] },
      both: { allOf: [{ properties: { a: { type: 'integer' } }, required: ['a'] }, { required: ['b'] }] },
      anything: {},
      map: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 2 },
    },
    required: ['list', 'tuple', 'empty', 'nullable', 'either', 'both', 'anything', 'map'],
  },
  {
    $defs: {
      node: {
        type: 'object',
        properties: {
          label: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/node' } },
        },
        required: ['label', 'children'],
        additionalProperties: false,
      },
    },
    $ref: '#/$defs/node',
  },
  { type: 'array', items: { type: ['null', 'number'] } },
  {
    type: 'object',
    properties: {
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
      phone: { type: 'string', pattern: '^\\+?[1-9]\\d{1,14}$' },
      time: { type: 'string', pattern: '^(?:[01]\\d|2[0-3]):[0-5]\\d$' },
      email: { type: 'string', pattern: '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$' },
      slug: { type: 'string', pattern: '^[a-z]+(?:-[a-z]+)*$', minLength: 20, maxLength: 30 },
      short: { type: 'string', pattern: '[a-z]', maxLength: 3 },
      nested: { type: 'string', pattern: '^(a+)+$' },
      // Unicode property escapes are beyond the generator: the prompt's words, which fit, are used instead.
      name: { type: 'string', pattern: '^\\p{L}+$' },
    },
    required: ['code', 'phone', 'time', 'email', 'slug', 'short', 'nested', 'name'],
  },
];

describe('jsonValueFor', () => {
  it('gives values valid against every schema, for every prompt and many seeds', () => {
    for (const [i, schema] of SCHEMAS.entries()) {
      const validate = ajv.compile(schema);
      for (const prompt of PROMPTS) {
        for (let seed = 0; seed < 40; seed++) {
          const value = jsonValueFor(schema, valueSourceFrom(prompt, String(seed)));
          const ok = validate(value);
          expect(ok, `schema ${i}, '${prompt}', seed ${seed}: ${JSON.stringify(validate.errors)}`).toBe(true);
        }
      }
    }
  });

  it('is deterministic, and takes strings and numbers from the prompt', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city', 'days'],
    };
    const source = () => valueSourceFrom('What is the weather in Paris for 3 days?', 'seed');
    expect(jsonValueFor(schema, source())).toEqual({ city: 'Paris', days: 3 });
    expect(jsonValueFor(schema, source())).toEqual(jsonValueFor(schema, source()));
  });

  it('ends on a schema that requires itself', () => {
    const schema = { type: 'object', properties: { self: { $ref: '#' } }, required: ['self'] };
    expect(() => jsonValueFor(schema, valueSourceFrom('loop', 'seed'))).not.toThrow();
    // Combinators that refer to themselves end too.
    for (const loop of [
      { allOf: [{ $ref: '#' }] },
      { anyOf: [{ $ref: '#' }] },
      { oneOf: [{ allOf: [{ $ref: '#' }] }] },
    ]) {
      expect(() => jsonValueFor(loop, valueSourceFrom('loop', 'seed'))).not.toThrow();
    }
  });

  it('refuses, at once, schemas whose smallest instance is huge: the 400 names the field', () => {
    const source = () => valueSourceFrom('Paris', 'seed');
    const huge = [
      { type: 'array', minItems: 1e9 },
      { type: 'object', minProperties: 1e9 },
      { type: 'string', minLength: 1e9 },
      // 100^4 values, each level small.
      {
        type: 'array',
        minItems: 100,
        items: {
          type: 'array',
          minItems: 100,
          items: { type: 'array', minItems: 100, items: { type: 'array', minItems: 100 } },
        },
      },
    ];
    for (const schema of huge) {
      const started = performance.now();
      let caught: unknown;
      try {
        jsonValueFor(schema, source(), 'response_format.json_schema.schema');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ServiceError);
      expect((caught as ServiceError).param).toBe('response_format.json_schema.schema');
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    // A long minLength within the limit is filled in linear time.
    const text = jsonValueFor({ type: 'string', minLength: 16_000 }, source()) as string;
    expect(text.length).toBeGreaterThanOrEqual(16_000);
  });

  it('draws strings from patterns, at once even for patterns built to hold the event loop or the heap', () => {
    const prompt = `Find ${'a'.repeat(40)}!`;
    for (const pattern of [
      '^(a+)+$',
      '(a{10000}){10000}',
      '(?:){1000000000}',
      '(x*)*y{100000}',
      '([',
      '^\\p{Lu}\\p{Ll}+$',
    ]) {
      const started = performance.now();
      const value = jsonValueFor({ type: 'string', pattern, maxLength: 50 }, valueSourceFrom(prompt, 'seed'));
      expect(typeof value, pattern).toBe('string');
      expect((value as string).length, pattern).toBeLessThanOrEqual(50);
      expect(performance.now() - started, pattern).toBeLessThan(1_000);
    }
    // A pattern the generator can follow is followed, whatever the seed.
    for (let seed = 0; seed < 20; seed++) {
      const value = jsonValueFor(
        { type: 'string', pattern: '^INV-\\d{6}$' },
        valueSourceFrom(prompt, String(seed)),
      );
      expect(value).toMatch(/^INV-\d{6}$/);
    }
  });

  it('checks a candidate with the client expression only when it cannot backtrack for long', () => {
    for (const risky of ['(a+)+', '(a|ab)*', '((a)*)*', '(?:\\d+){2}', '(a|b)+', '([']) {
      expect(checkable(risky), risky).toBe(false);
    }
    for (const safe of ['^[a-z]+$', '(ab)+', '(a+)?', '[(a+)+]', '\\(a+\\)+', 'a|b', '(a)(b+)']) {
      expect(checkable(safe), safe).toBe(true);
    }
  });
});

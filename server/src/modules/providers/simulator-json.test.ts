import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors';
import { jsonValueFor, valueSourceFrom } from './simulator-json';

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

  it("never runs the schema's regular expression (a pattern like (a+)+$ would hold the event loop)", () => {
    const prompt = `Find ${'a'.repeat(40)}!`;
    const started = performance.now();
    const value = jsonValueFor({ type: 'string', pattern: '^(a+)+$' }, valueSourceFrom(prompt, 'seed'));
    expect(typeof value).toBe('string');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

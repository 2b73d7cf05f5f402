import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
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
      p: { type: 'string', pattern: '^[a-z]+$' },
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
  });
});

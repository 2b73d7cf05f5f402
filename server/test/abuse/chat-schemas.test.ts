import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server';
import { type Answer, expectBounded, expectRefused, newKey, post, startAbuseServer } from './harness';

/**
 * Issue 27, item 1: the simulator's work on a client's JSON Schema (response_format, tools) is bounded before it
 * is done, and a schema over the bounds is a 400 naming them, while the event loop stays free.
 */
let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startAbuseServer();
  key = await newKey(server);
});
afterAll(async () => {
  await server?.close();
});

function structured(schema: unknown, extra: Record<string, unknown> = {}): () => Promise<Answer> {
  const text = JSON.stringify({
    model: 'tessera-fast-4k',
    messages: [{ role: 'user', content: 'Describe Paris in 3 words' }],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    ...extra,
  });
  return () => post(server, key, '/v1/chat/completions', text);
}

function oneString(pattern: string): unknown {
  return { type: 'object', properties: { a: { type: 'string', pattern } }, required: ['a'] };
}

/** A schema nested `depth` levels, written as text: the client's JSON.stringify would recurse as deep. */
function nested(depth: number): unknown {
  const open = '{"type":"object","required":["a"],"properties":{"a":';
  return JSON.parse(`${open.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`);
}

describe('patterns asking for huge strings', () => {
  // The 248-byte request froze the loop for 38.6 s and exhausted the heap.
  for (const count of ['2147483647', '9999999', '1000000', '16385']) {
    it(`^x{${count}}$ is a 400 naming the limit, at once`, async () => {
      const { answer } = await expectBounded(count, structured(oneString(`^x{${count}}$`)));
      expectRefused(answer, 400, 'schema_too_large');
      expect(answer.body.error?.param).toBe('response_format.json_schema.schema');
      expect(answer.body.error?.message).toContain('16384 characters');
    });
  }

  it('a pattern within the limit is still followed', async () => {
    const { answer } = await expectBounded('x{4096}', structured(oneString('^[a-z]{4096}$')));
    expect(answer.status).toBe(200);
    const content = (answer.body.choices as { message: { content: string } }[])[0]?.message.content ?? '';
    expect(content.length).toBeGreaterThan(100);
  });
});

describe('generated abusive schemas', () => {
  const cases: [string, unknown, Record<string, unknown>?][] = [
    ['nested repetitions', oneString('^(?:(?:x{1000}){1000}){1000}$')],
    ['a repeated empty group', oneString('^(?:){2147483647}x$')],
    [
      'many strings of a costly pattern',
      {
        type: 'array',
        minItems: 10_000,
        items: { type: 'string', pattern: '^(?:[a-z]{1,9}|[0-9]{1,9}|[A-Z]{1,9}){1,30}$' },
      },
      { n: 8 },
    ],
    [
      'pathological backtracking patterns',
      {
        type: 'array',
        minItems: 200,
        items: { type: 'string', pattern: `^(${'a|'.repeat(300)}a)+(a+)+(a|aa)*b$` },
      },
    ],
    ['many long strings', { type: 'array', minItems: 9_000, items: { type: 'string', minLength: 16_384 } }],
    [
      'a wide object',
      {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { type: 'integer' }]),
        ),
        required: Array.from({ length: 5_000 }, (_, i) => `p${i}`),
      },
      { n: 8 },
    ],
    [
      'allOf merging wide branches',
      {
        allOf: Array.from({ length: 100 }, (_, j) => ({
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 100 }, (_, i) => [`p${j}_${i}`, { type: 'integer' }]),
          ),
        })),
      },
    ],
    ['a deep schema', nested(2_000)],
    [
      'self-referring anyOf fanning out',
      {
        $defs: {
          a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'array', minItems: 3, items: { $ref: '#/$defs/a' } }] },
        },
        type: 'array',
        minItems: 100,
        items: { $ref: '#/$defs/a' },
      },
      { n: 8 },
    ],
    ['a huge const', { type: 'object', properties: { a: { const: 'x '.repeat(200_000) } }, required: ['a'] }],
  ];
  for (const [label, schema, extra] of cases) {
    it(`${label}: answered or refused with a 400, the loop free`, async () => {
      const { answer } = await expectBounded(label, structured(schema, extra));
      if (answer.status !== 200) {
        expect(answer.status).toBe(400);
        // A schema nested past the body's own depth bound (128 levels) is refused as the body is read.
        expect(answer.body.error?.code).toMatch(/^(schema|request)_too_(large|complex)$/);
      }
    });
  }

  it('tools: parameters with a pattern asking for a huge string are a 400 naming `tools`', async () => {
    const text = JSON.stringify({
      model: 'tessera-fast-4k',
      messages: [{ role: 'user', content: 'Weather in Paris, Rome and Tokyo' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: oneString('^x{2147483647}$') } }],
      tool_choice: 'required',
      n: 8,
    });
    const { answer } = await expectBounded('tools', () => post(server, key, '/v1/chat/completions', text));
    expectRefused(answer, 400, 'schema_too_large');
    expect(answer.body.error?.param).toBe('tools');
  });
});

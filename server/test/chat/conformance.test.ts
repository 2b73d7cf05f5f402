import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvidersServer, startFakeProvidersServer } from '../helpers/conformance-setup';
import { compileOpenAiSchemas, expectConforms as conforms } from '../helpers/openai-schemas';
import type { TestServer } from '../helpers/server';

let validators: ReturnType<typeof compileOpenAiSchemas>;
let server: TestServer;
let setup: FakeProvidersServer | undefined;
let testKey: string;
let liveKey: string;

function expectConforms(schema: string, data: unknown): void {
  conforms(validators, schema, data);
}

async function post(body: Record<string, unknown>, key = testKey): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function sseChunks(text: string): unknown[] {
  const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
  expect(events.at(-1)).toBe('data: [DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
}

describe("conformance with OpenAI's OpenAPI document", () => {
  beforeAll(async () => {
    validators = compileOpenAiSchemas([
      'CreateChatCompletionResponse',
      'CreateChatCompletionStreamResponse',
      'ListModelsResponse',
      'Model',
      'ErrorResponse',
    ]);
    setup = await startFakeProvidersServer({ BODY_LIMIT_BYTES: '65536' });
    ({ server, testKey, liveKey } = setup);
  }, 60_000);
  afterAll(async () => {
    await setup?.close();
  });

  const messages = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: [{ type: 'text', text: 'Compare lakes and rivers' }] },
  ];
  const tools = [
    {
      type: 'function',
      function: {
        name: 'compare_waters',
        description: 'Compare two bodies of water',
        parameters: {
          type: 'object',
          properties: { first: { type: 'string' }, second: { type: 'string' } },
          required: ['first', 'second'],
        },
      },
    },
  ];

  it('non-streamed responses: simulator (n, stop, length, tool calls) and upstream (text, tool calls)', async () => {
    const bodies = [
      { model: 'up-ok', messages, n: 2 },
      { model: 'up-ok', messages, max_tokens: 3 },
      { model: 'up-ok', messages, stop: ['and'] },
      { model: 'up-ok', messages, tools, tool_choice: 'required', n: 2 },
      { model: 'up-ok', messages, tools, max_tokens: 5 },
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.status).toBe(200);
      expectConforms('CreateChatCompletionResponse', await res.json());
    }
    for (const model of ['up-ok', 'up-tools']) {
      const res = await post({ model, messages }, liveKey);
      expect(res.status).toBe(200);
      expectConforms('CreateChatCompletionResponse', await res.json());
    }
  });

  it("translated and relayed answers: Anthropic's (n, tools, JSON mode, cached usage), usage breakdowns, functions", async () => {
    const jsonMode = { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object' } } };
    const bodies = [
      { model: 'claude-ok', messages, n: 2 },
      { model: 'claude-tools', messages, tools },
      { model: 'claude-ok', messages, response_format: jsonMode },
      { model: 'claude-cached', messages },
      { model: 'up-reasoning', messages },
      // The deprecated functions API: function_call in the message and the deltas, finish function_call.
      { model: 'claude-tools', messages, functions: [{ name: 'lookup' }] },
      { model: 'up-tools', messages, functions: [{ name: 'lookup' }], function_call: 'auto' },
    ];
    for (const body of bodies) {
      const res = await post(body, liveKey);
      expect(res.status).toBe(200);
      expectConforms('CreateChatCompletionResponse', await res.json());
      const streamed = await post(
        { ...body, stream: true, stream_options: { include_usage: true } },
        liveKey,
      );
      expect(streamed.status).toBe(200);
      const chunks = sseChunks(await streamed.text());
      expect(chunks.length).toBeGreaterThan(2);
      for (const chunk of chunks) expectConforms('CreateChatCompletionStreamResponse', chunk);
    }
  });

  it('every stream chunk, with and without include_usage, simulated and relayed', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'up-ok', messages, stream: true, n: 2, stream_options: { include_usage: true } }, testKey],
      [{ model: 'up-ok', messages, stream: true, max_tokens: 4 }, testKey],
      [{ model: 'up-ok', messages, tools, stream: true, stream_options: { include_usage: true } }, testKey],
      [{ model: 'up-ok', messages, stream: true, stream_options: { include_usage: true } }, liveKey],
    ];
    for (const [body, key] of cases) {
      const res = await post(body, key);
      expect(res.status).toBe(200);
      const chunks = sseChunks(await res.text());
      expect(chunks.length).toBeGreaterThan(2);
      for (const chunk of chunks) expectConforms('CreateChatCompletionStreamResponse', chunk);
    }
  });

  it('the model list and one model', async () => {
    const headers = { authorization: `Bearer ${testKey}` };
    const list = await (await fetch(`${server.url}/v1/models`, { headers })).json();
    expectConforms('ListModelsResponse', list);
    expectConforms('Model', await (await fetch(`${server.url}/v1/models/up-ok`, { headers })).json());
  });

  it('error bodies: validation, unknown model, context, auth, body errors, upstream failures', async () => {
    const responses = [
      await post({ model: 'up-ok', messages, temperature: 9 }),
      await post({ messages }),
      await post({ model: 'nope', messages }),
      await post({ model: 'up-ok', messages: [{ role: 'user', content: ' hi'.repeat(9_000) }] }),
      await post({ model: 'up-500', messages }, liveKey),
      await post({ model: 'up-429', messages }, liveKey),
      await post({ model: 'up-ok', messages }, 'sk_test_invalid'),
      await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testKey}`, 'content-type': 'text/plain' },
        body: 'hello',
      }),
    ];
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectConforms('ErrorResponse', await res.json());
    }
  });
});

/** What POST /v1/responses refuses, and how: a 400 in OpenAI's error body naming the Responses parameter. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey, createKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;
let client: OpenAI;

beforeAll(async () => {
  server = await startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', BODY_LIMIT_BYTES: '65536' },
  });
  key = (await createAccountWithKey(server)).key.key;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

async function post(body: unknown, auth = key): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error: Record<string, unknown> };
  return { status: res.status, error: json.error };
}

const model = 'tessera-fast-4k';

describe('POST /v1/responses refusals', () => {
  it.each([
    [{ input: 'hi' }, 'model', 'missing_required_parameter'],
    [{ model }, 'input', 'missing_required_parameter'],
    [{ model, input: [] }, 'input', 'invalid_value'],
    [{ model, input: 'hi', temperature: 3 }, 'temperature', 'invalid_value'],
    [{ model, input: 'hi', top_p: -1 }, 'top_p', 'invalid_value'],
    [{ model, input: 'hi', max_output_tokens: 8 }, 'max_output_tokens', 'invalid_value'],
    [{ model, input: 'hi', n: 2 }, null, 'invalid_value'],
    [{ model, input: [{ role: 'robot', content: 'hi' }] }, 'input[0].role', 'invalid_value'],
    [{ model, input: [{ role: 'user' }] }, 'input[0].content', 'missing_required_parameter'],
    [
      { model, input: [{ role: 'user', content: [{ type: 'input_text' }] }] },
      'input[0].content[0].text',
      'missing_required_parameter',
    ],
    [
      { model, input: [{ type: 'function_call_output', output: 'x' }] },
      'input[0].call_id',
      'missing_required_parameter',
    ],
    [
      { model, input: [{ type: 'function_call', call_id: 'c1', name: 'f' }] },
      'input[0].arguments',
      'missing_required_parameter',
    ],
    [
      { model, input: 'hi', tools: [{ type: 'function', description: 'no name' }] },
      'tools[0].name',
      'missing_required_parameter',
    ],
    [{ model, input: 'hi', tool_choice: 'sometimes' }, 'tool_choice', 'invalid_value'],
    [{ model, input: 'hi', text: { format: { type: 'xml' } } }, 'text.format.type', 'invalid_value'],
    [
      {
        model,
        input: 'hi',
        metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
      },
      'metadata',
      'invalid_value',
    ],
  ])('%j is a 400 naming %s', async (body, param, code) => {
    const { status, error } = await post(body);
    expect(status).toBe(400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('names the unknown parameter', async () => {
    const { error } = await post({ model, input: 'hi', n: 2 });
    expect(error.message).toBe("Unrecognized parameter 'n'.");
  });

  it.each([
    [{ store: true }, 'store', /stores no responses/],
    [{ previous_response_id: 'resp_abc' }, 'previous_response_id', /send the earlier turns/],
    [{ conversation: 'conv_1' }, 'conversation', /keeps no conversations/],
    [{ background: true }, 'background', /Background responses are not supported/],
    [{ prompt: { id: 'pmpt_1' } }, 'prompt', /Prompt templates/],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type', /Tool type 'web_search' is not supported/],
    [
      { input: [{ type: 'item_reference', id: 'msg_1' }] },
      'input[0]',
      /Item references need stored responses/,
    ],
    [{ input: [{ type: 'computer_call_output', call_id: 'c' }] }, 'input[0].type', /'computer_call_output'/],
    [
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] },
      'input[0].content[0].type',
      /'input_file' are not supported/,
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] },
      'input[0].content[0].image_url',
      /no files API/,
    ],
  ])(
    'what needs state or OpenAI-hosted features (%j) is a clear 400 naming %s',
    async (extra, param, message) => {
      const { status, error } = await post({ model, input: 'hi', ...extra });
      expect(status).toBe(400);
      expect(error.param).toBe(param);
      expect(String(error.message)).toMatch(message);
    },
  );

  it('store: false, background: false, truncation, include, and tool_choice without tools are accepted', async () => {
    const res = await client.responses.create({
      model,
      input: 'hi',
      store: false,
      background: false,
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
      parallel_tool_calls: false,
      tool_choice: 'auto',
      tools: [],
    });
    expect(res).toMatchObject({ status: 'completed', store: false, truncation: 'disabled' });
  });

  it("refusals of the chat path name the Responses parameter: the model's cap, the model, the context", async () => {
    const cap = await post({ model, input: 'hi', max_output_tokens: 5_000 });
    expect(cap.status).toBe(400);
    expect(cap.error.param).toBe('max_output_tokens');
    expect(cap.error.message).toBe(
      "max_output_tokens is too large: 5000. Model 'tessera-fast-4k' supports at most 2048 completion tokens, whereas you provided 5000.",
    );
    const unknown = await post({ model: 'no-such-model', input: 'hi' });
    expect(unknown.status).toBe(404);
    expect(unknown.error.code).toBe('model_not_found');
    const long = await post({ model, input: 'tide '.repeat(5_000) });
    expect(long.status).toBe(400);
    expect(long.error).toMatchObject({ param: 'input', code: 'context_length_exceeded' });
  });

  it('the SDK raises a BadRequestError carrying the param', async () => {
    const err = await client.responses
      .create({ model, input: 'hi', temperature: 5 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
  });

  it('needs a key, and one whose scopes include chat', async () => {
    expect((await post({ model, input: 'hi' }, 'sk_test_nope')).status).toBe(401);
    const embeddingsOnly = await createKey(
      server,
      (await createAccountWithKey(server)).account.id,
      'test',
      'embeddings only',
      {
        scopes: ['embeddings'],
      },
    );
    const refused = await post({ model, input: 'hi' }, embeddingsOnly.key);
    expect(refused.status).toBe(403);
    expect(refused.error.code).toBe('permission_denied');
  });

  it('a body that is not an object is a 400 naming what it received', async () => {
    const { status, error } = await post(['hi']);
    expect(status).toBe(400);
    expect(error.message).toBe(
      "The request body must be a JSON object with 'model' and 'input'; received an array of 1.",
    );
  });
});

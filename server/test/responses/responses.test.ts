/** POST /v1/responses with test keys (the simulator), through the real server with the openai SDK as the client. */
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { createAccountWithKey } from '../helpers/fixtures';
import { settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectValid, flightParams, tokens, weatherParams } from '../helpers/simulator-suite';

let server: TestServer;
let client: OpenAI;
let key: string;
let accountId: string;

beforeAll(async () => {
  server = await startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', BODY_LIMIT_BYTES: '65536' },
  });
  const created = await createAccountWithKey(server);
  key = created.key.key;
  accountId = created.account.id;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: weatherParams,
    strict: true,
  },
  { type: 'function' as const, name: 'searchFlights', parameters: flightParams, strict: false },
];

async function events(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const all: ResponseStreamEvent[] = [];
  for await (const event of stream) all.push(event);
  return all;
}

describe('POST /v1/responses (simulator)', () => {
  it('answers a string input with a completed response: one message, output_text, usage', async () => {
    const { data: res, response } = await client.responses
      .create({ model: 'tessera-fast-4k', input: 'Tell me about tides', instructions: 'Be brief.' })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).toBe('simulator');
    expect(res.id).toMatch(/^resp_[A-Za-z0-9]{32}$/);
    expect(res).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'tessera-fast-4k',
      instructions: 'Be brief.',
      error: null,
      incomplete_details: null,
      store: false,
      tool_choice: 'auto',
      tools: [],
      metadata: {},
    });
    expect(res.output).toHaveLength(1);
    const message = res.output[0];
    if (message?.type !== 'message') throw new Error('expected a message');
    expect(message.id).toMatch(/^msg_/);
    expect(message.status).toBe('completed');
    expect(message.content[0]?.type).toBe('output_text');
    expect(res.output_text.length).toBeGreaterThan(0);
    // The chat path's counts: the output is the BPE count of the text; input includes the instructions.
    expect(res.usage?.output_tokens).toBe(tokens(res.output_text));
    expect(res.usage?.input_tokens).toBeGreaterThan(tokens('Tell me about tides'));
    expect(res.usage?.total_tokens).toBe((res.usage?.input_tokens ?? 0) + (res.usage?.output_tokens ?? 0));
    expect(res.usage?.input_tokens_details.cached_tokens).toBe(0);
    expect(res.usage?.output_tokens_details.reasoning_tokens).toBe(0);
  });

  it('echoes metadata, user, temperature and top_p; answers a list of input items with an image', async () => {
    const res = await client.responses.create({
      model: 'tessera-fast-4k',
      input: [
        { role: 'developer', content: 'Answer in one line.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: 'https://example.com/lake.png', detail: 'low' },
          ],
        },
        { role: 'assistant', content: 'A lake.' },
        { role: 'user', content: 'Which one?' },
      ],
      metadata: { ticket: 'T-42' },
      user: 'user-7',
      temperature: 0.3,
      top_p: 0.9,
    });
    expect(res).toMatchObject({
      status: 'completed',
      metadata: { ticket: 'T-42' },
      user: 'user-7',
      temperature: 0.3,
      top_p: 0.9,
    });
    expect(res.output_text.length).toBeGreaterThan(0);
  });

  it('stops at max_output_tokens: status incomplete with its reason', async () => {
    const res = await client.responses.create({
      model: 'tessera-fast-4k',
      input: 'Write a long essay about the history of lighthouses',
      max_output_tokens: 16,
    });
    expect(res.status).toBe('incomplete');
    expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(res.max_output_tokens).toBe(16);
    expect(res.usage?.output_tokens).toBe(16);
    expect(res.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('streams the semantic events in order, numbered, the deltas adding up to the completed text', async () => {
    const stream = await client.responses.create({
      model: 'tessera-fast-4k',
      input: 'Tell me about tides',
      stream: true,
    });
    const all = await events(stream);
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    const types = all.map((e) => e.type);
    const deltas = all.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...deltas.map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const created = all[0];
    const completed = all.at(-1);
    if (created?.type !== 'response.created' || completed?.type !== 'response.completed')
      throw new Error('expected created … completed');
    expect(created.response.status).toBe('in_progress');
    expect(created.response.output).toEqual([]);
    expect(completed.response.id).toBe(created.response.id);
    const text = deltas.map((d) => (d.type === 'response.output_text.delta' ? d.delta : '')).join('');
    const done = all.find((e) => e.type === 'response.output_text.done');
    expect(done?.type === 'response.output_text.done' && done.text).toBe(text);
    expect(completed.response.status).toBe('completed');
    expect(completed.response.output_text ?? text).toBe(text);
    const message = completed.response.output[0];
    expect(message?.type === 'message' && message.content[0]).toMatchObject({ type: 'output_text', text });
    // The same usage as the non-streamed answer to the same request.
    const whole = await client.responses.create({ model: 'tessera-fast-4k', input: 'Tell me about tides' });
    expect(completed.response.usage).toEqual(whole.usage);
    expect(whole.output_text).toBe(text);
  });

  it("the SDK's responses.stream helper gives the final response and text deltas", async () => {
    const stream = client.responses.stream({ model: 'tessera-fast-4k', input: 'Describe a river delta' });
    const pieces: string[] = [];
    stream.on('response.output_text.delta', (e) => pieces.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(pieces.join(''));
    expect(pieces.length).toBeGreaterThan(1);
  });

  it('calls a function tool and takes its output back (a round trip), streamed and not', async () => {
    const input = 'What is the weather in Lisbon in celsius?';
    const first = await client.responses.create({
      model: 'tessera-fast-4k',
      input,
      tools,
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(first.status).toBe('completed');
    expect(first.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
    expect(first.tools[0]).toMatchObject({ type: 'function', name: 'get_weather', strict: true });
    const call = first.output.find((o) => o.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function call');
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
    expect(call.name).toBe('get_weather');
    expectValid(weatherParams, JSON.parse(call.arguments));
    expect(first.usage?.output_tokens).toBe(tokens(call.name) + tokens(call.arguments));

    const streamed = await events(
      await client.responses.create({
        model: 'tessera-fast-4k',
        input,
        tools,
        tool_choice: 'required',
        stream: true,
      }),
    );
    const types = streamed.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
    ]);
    expect(types).toContain('response.function_call_arguments.delta');
    const argsDone = streamed.find((e) => e.type === 'response.function_call_arguments.done');
    const completed = streamed.at(-1);
    if (
      argsDone?.type !== 'response.function_call_arguments.done' ||
      completed?.type !== 'response.completed'
    )
      throw new Error('expected arguments done, then completed');
    const pieces = streamed.flatMap((e) =>
      e.type === 'response.function_call_arguments.delta' ? [e.delta] : [],
    );
    expect(argsDone.arguments).toBe(pieces.join(''));
    const streamedCall = completed.response.output[0];
    expect(streamedCall).toMatchObject({
      type: 'function_call',
      status: 'completed',
      arguments: argsDone.arguments,
    });

    // The client runs the function and sends the call and its output back: the model answers in text.
    const second = await client.responses.create({
      model: 'tessera-fast-4k',
      input: [
        { role: 'user', content: input },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        {
          type: 'function_call_output',
          call_id: call.call_id,
          output: '{"temperature": 18, "sky": "clear"}',
        },
      ],
      tools,
    });
    expect(second.status).toBe('completed');
    expect(second.output.map((o) => o.type)).toEqual(['message']);
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  it('text.format json_schema gives JSON valid against the schema', async () => {
    const res = await client.responses.create({
      model: 'tessera-fast-4k',
      input: 'Weather for Oslo please',
      text: { format: { type: 'json_schema', name: 'weather', schema: weatherParams, strict: true } },
    });
    expectValid(weatherParams, JSON.parse(res.output_text));
    expect(res.text?.format).toMatchObject({ type: 'json_schema', name: 'weather' });
    const object = await client.responses.create({
      model: 'tessera-fast-4k',
      input: 'Weather for Oslo as JSON',
      text: { format: { type: 'json_object' } },
    });
    expect(typeof JSON.parse(object.output_text)).toBe('object');
  });

  it('meters each response as a usage event of the route, with its tokens', async () => {
    const rows = () =>
      server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, accountId));
    const before = (
      await (async () => {
        await server.services.usage.flush();
        return rows();
      })()
    ).length;
    const res = await client.responses.create({ model: 'tessera-fast-4k', input: 'Count my tokens' });
    await settleUsage(server, async () => (await rows()).length, before + 1);
    const mine = (await rows()).filter((r) => r.route === '/v1/responses' && r.status === 200);
    const last = mine.find((r) => r.completionTokens === res.usage?.output_tokens);
    expect(last).toMatchObject({
      route: '/v1/responses',
      model: 'tessera-fast-4k',
      promptTokens: res.usage?.input_tokens,
      completionTokens: res.usage?.output_tokens,
    });
  });
});

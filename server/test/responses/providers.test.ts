/**
 * POST /v1/responses with live keys: translated to chat completions for fake OpenAI-compatible and Anthropic
 * upstreams on loopback (what they are sent, what comes back), the allowance, metering, and failures.
 */
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageEvents } from '../../src/db/schema';
import { eventually, spyOnAllowance, writeFakeCatalogue } from '../helpers/chat-setup';
import {
  FAKE_REASONING,
  FAKE_TEXT,
  type FakeUpstream,
  startFakeAnthropic,
  startFakeOpenAi,
  TOOL_CALL_PIECES,
} from '../helpers/fake-upstreams';
import { createAccountWithKey } from '../helpers/fixtures';
import { settleUsage } from '../helpers/graphql';
import { startTestServer, type TestServer } from '../helpers/server';

const UPSTREAM_SECRET = 'sk-upstream-responses-secret';
let server: TestServer;
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let live: OpenAI;
let accountId: string;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  server = await startTestServer({
    env: {
      MODELS_FILE: writeFakeCatalogue(),
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: UPSTREAM_SECRET,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'ant-responses',
      PLAN_PRO_RPM: '100000',
      UPSTREAM_RETRY_BACKOFF_MS: '10',
      MODEL_TIMEOUT_MS: '1000',
    },
  });
  const created = await createAccountWithKey(server, { plan: 'pro', kind: 'live' });
  accountId = created.account.id;
  live = new OpenAI({ apiKey: created.key.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await openai?.close();
  await anthropic?.close();
});

async function events(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const all: ResponseStreamEvent[] = [];
  for await (const event of stream) all.push(event);
  return all;
}

const lastRequest = (fake: FakeUpstream) => fake.requests.at(-1)?.body ?? {};

describe('POST /v1/responses relayed to an OpenAI-compatible upstream as a chat completion', () => {
  it('sends the translated chat request and answers its completion as a response', async () => {
    const { data: res, response } = await live.responses
      .create({
        model: 'up-ok',
        instructions: 'You are terse.',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Look at this' },
              { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
            ],
          },
        ],
        max_output_tokens: 300,
        temperature: 0.2,
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: null }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'low' },
        metadata: { run: '1' },
        user: 'end-user-1',
      })
      .withResponse();
    expect(response.headers.get('x-tessera-provider')).not.toBe('simulator');
    expect(res).toMatchObject({ status: 'completed', model: 'up-ok', metadata: { run: '1' } });
    expect(res.output_text).toBe(FAKE_TEXT);
    expect(res.usage).toEqual({
      input_tokens: 11,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 18,
    });
    const sent = lastRequest(openai);
    expect(sent).toEqual({
      model: 'ok',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          ],
        },
      ],
      max_tokens: 300,
      temperature: 0.2,
      user: 'end-user-1',
      reasoning_effort: 'low',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      parallel_tool_calls: false,
      tool_choice: 'auto',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
    });
    // The upstream's key is Tessera's, never the client's.
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${UPSTREAM_SECRET}`);
  });

  it('gives function calls and their outputs back as an assistant turn with tool calls, then tool messages', async () => {
    await live.responses.create({
      model: 'up-ok',
      input: [
        { role: 'user', content: 'Weather in Lisbon and Porto?' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'function_call', call_id: 'call_a', name: 'weather', arguments: '{"city":"Lisbon"}' },
        { type: 'function_call', call_id: 'call_b', name: 'weather', arguments: '{"city":"Porto"}' },
        { type: 'function_call_output', call_id: 'call_a', output: '18C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '16C' }] },
        {
          // An output item given back as it came (id, status, annotations, logprobs and all).
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Lisbon 18C, Porto 16C.', annotations: [], logprobs: [] }],
        },
        { role: 'user', content: 'Thanks' },
      ],
      // Without tools, as agents send it on every turn: not sent (OpenAI's chat refuses tool_choice without tools).
      tool_choice: 'auto',
    });
    expect(lastRequest(openai).tool_choice).toBeUndefined();
    expect(lastRequest(openai).messages).toEqual([
      { role: 'user', content: 'Weather in Lisbon and Porto?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } },
          { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Porto"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C' },
      { role: 'tool', tool_call_id: 'call_b', content: '16C' },
      { role: 'assistant', content: 'Lisbon 18C, Porto 16C.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it("answers the upstream's tool call as a function_call item; streamed, as argument deltas", async () => {
    const whole = await live.responses.create({
      model: 'up-tools',
      input: 'look it up',
      tools: [{ type: 'function', name: 'lookup', parameters: null, strict: null }],
    });
    expect(whole.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_1',
        name: 'lookup',
        arguments: '{"q":"x"}',
        status: 'completed',
      }),
    ]);
    const streamed = await events(
      await live.responses.create({ model: 'up-toolsnousage', input: 'look it up', stream: true }),
    );
    const [name, ...pieces] = TOOL_CALL_PIECES;
    const deltas = streamed.flatMap((e) =>
      e.type === 'response.function_call_arguments.delta' ? [e.delta] : [],
    );
    expect(deltas).toEqual(pieces);
    const added = streamed.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      name,
      arguments: '',
      status: 'in_progress',
    });
    const completed = streamed.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('expected response.completed last');
    // No usage from the upstream: the output is counted with the BPE, as the chat path meters it.
    expect(completed.response.usage?.output_tokens).toBeGreaterThan(0);
    expect(completed.response.output[0]).toMatchObject({ arguments: pieces.join(''), status: 'completed' });
  });

  it("relays the upstream's reasoning as a reasoning item and its usage breakdowns", async () => {
    const whole = await live.responses.create({ model: 'up-reasoning', input: 'Hi' });
    expect(whole.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(whole.output[0]).toMatchObject({ content: [{ type: 'reasoning_text', text: FAKE_REASONING }] });
    expect(whole.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 5 },
    });
    const streamed = await events(
      await live.responses.create({ model: 'up-reasoning', input: 'Hi', stream: true }),
    );
    const types = streamed.map((e) => e.type);
    expect(types.indexOf('response.reasoning_text.delta')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
    // The reasoning item is done before the message is added.
    const reasoningDone = streamed.findIndex((e) => e.type === 'response.output_item.done');
    const messageAdded = streamed.findLastIndex((e) => e.type === 'response.output_item.added');
    expect(reasoningDone).toBeLessThan(messageAdded);
    const completed = streamed.at(-1);
    expect(completed?.type === 'response.completed' && completed.response.usage).toEqual(whole.usage);
  });

  it('reserves and settles the allowance and meters the route, as chat does', async () => {
    const spy = spyOnAllowance(server);
    const res = await live.responses.create({ model: 'up-ok', input: 'Hi there', max_output_tokens: 100 });
    await eventually(() => spy.settled.length === 1);
    expect(spy.reserved).toHaveLength(1);
    // The prompt as counted before the call, plus the cap; settled to what the upstream reported.
    expect(spy.reserved[0]).toBeGreaterThan(100);
    expect(spy.reserved[0]).toBeLessThan(130);
    expect(spy.settled).toEqual([res.usage?.total_tokens]);
    const rows = () =>
      server.services.ctx.db.select().from(usageEvents).where(eq(usageEvents.accountId, accountId));
    await settleUsage(
      server,
      async () => (await rows()).filter((r) => r.route === '/v1/responses').length,
      1,
    );
    const metered = (await rows()).filter((r) => r.route === '/v1/responses' && r.status === 200);
    expect(metered.length).toBeGreaterThan(0);
    expect(metered.at(-1)).toMatchObject({
      model: expect.stringMatching(/^up-/),
      promptTokens: expect.any(Number),
    });
  });

  it('is answered through the Anthropic translation too', async () => {
    const res = await live.responses.create({ model: 'claude-ok', instructions: 'Be kind.', input: 'Hello' });
    expect(res.status).toBe('completed');
    expect(res.output_text.length).toBeGreaterThan(0);
    expect(lastRequest(anthropic).system).toBeDefined();
  });

  it("an upstream's failure is the chat path's error; the upstream's key never shows", async () => {
    const res = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-500', input: 'Hi' }),
    });
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).not.toContain(UPSTREAM_SECRET);
    expect(JSON.parse(text).error).toMatchObject({ code: 'upstream_error', type: expect.any(String) });
  });

  it('a stream that fails after it started ends with an error event and response.failed', async () => {
    const streamed = await events(
      await live.responses.create({ model: 'up-stall', input: 'Hi', stream: true }),
    );
    const types = streamed.map((e) => e.type);
    expect(types).toContain('response.output_text.delta');
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    const error = streamed.at(-2);
    const failed = streamed.at(-1);
    if (error?.type !== 'error' || failed?.type !== 'response.failed')
      throw new Error('expected error, failed');
    expect(error.code).toBe('model_timeout');
    expect(error.message).toMatch(/1000 ms/);
    expect(failed.response.status).toBe('failed');
    expect(failed.response.error).toEqual({ code: 'server_error', message: error.message });
    // The failed response holds what was streamed before the failure.
    const sent = streamed.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(sent.length).toBeGreaterThan(0);
    expect(failed.response.output[0]).toMatchObject({
      type: 'message',
      status: 'incomplete',
      content: [{ type: 'output_text', text: sent }],
    });
    expect(streamed.map((e) => e.sequence_number)).toEqual(streamed.map((_, i) => i));
  });
});

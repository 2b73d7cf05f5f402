/**
 * /v1/responses against OpenAI's own OpenAPI document (its `Response`, `ResponseStreamEvent` and `ErrorResponse`
 * schemas, vendored in test/fixtures/openai-openapi/): simulated, relayed from an OpenAI-compatible upstream and
 * translated from Anthropic, whole and streamed, failures included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvidersServer, startFakeProvidersServer } from '../helpers/conformance-setup';
import { compileOpenAiSchemas, expectConforms as conforms } from '../helpers/openai-schemas';
import type { TestServer } from '../helpers/server';
import { weatherParams } from '../helpers/simulator-suite';

let validators: ReturnType<typeof compileOpenAiSchemas>;
let server: TestServer;
let setup: FakeProvidersServer | undefined;
let testKey: string;
let liveKey: string;

function expectConforms(schema: string, data: unknown): void {
  // An event's response first: Ajv's errors for the whole union of events name every branch.
  const response = (data as { response?: unknown }).response;
  if (schema === 'ResponseStreamEvent' && response !== undefined) conforms(validators, 'Response', response);
  conforms(validators, schema, data);
}

async function post(body: Record<string, unknown>, key = testKey): Promise<Response> {
  return fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The stream's events: `event: <type>` then `data: <json>` each, the name the same as the data's `type`. */
async function streamEvents(
  body: Record<string, unknown>,
  key = testKey,
): Promise<Record<string, unknown>[]> {
  const res = await post({ ...body, stream: true }, key);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const blocks = (await res.text()).split('\n\n').filter((b) => b.startsWith('event: '));
  return blocks.map((block) => {
    const [eventLine, dataLine] = block.split('\n');
    const data = JSON.parse(dataLine?.slice('data: '.length) ?? '') as Record<string, unknown>;
    expect(eventLine).toBe(`event: ${String(data.type)}`);
    return data;
  });
}

beforeAll(async () => {
  validators = compileOpenAiSchemas(['Response', 'ResponseStreamEvent', 'ErrorResponse']);
  setup = await startFakeProvidersServer({ MODEL_TIMEOUT_MS: '1000' });
  ({ server, testKey, liveKey } = setup);
}, 60_000);
afterAll(async () => {
  await setup?.close();
});

const tools = [{ type: 'function', name: 'get_weather', parameters: weatherParams, strict: true }];

const CASES: [string, Record<string, unknown>, 'test' | 'live'][] = [
  ['simulated text', { model: 'up-ok', input: 'Tell me about lakes', metadata: { a: 'b' } }, 'test'],
  [
    'simulated tool call',
    { model: 'up-ok', input: 'Weather in Rome?', tools, tool_choice: 'required' },
    'test',
  ],
  [
    'simulated JSON',
    {
      model: 'up-ok',
      input: 'Rome weather',
      text: { format: { type: 'json_schema', name: 'w', schema: weatherParams, strict: true } },
    },
    'test',
  ],
  [
    'simulated at the cap',
    { model: 'up-ok', input: 'Write an essay on rivers', max_output_tokens: 16 },
    'test',
  ],
  ['relayed text', { model: 'up-ok', input: 'Hi', instructions: 'Be brief.' }, 'live'],
  ['relayed reasoning', { model: 'up-reasoning', input: 'Hi' }, 'live'],
  ['relayed tool call', { model: 'up-tools', input: 'Look it up' }, 'live'],
  ['streamed tool call without usage', { model: 'up-toolsnousage', input: 'Look it up' }, 'live'],
  ['translated from Anthropic', { model: 'claude-ok', input: 'Hi', instructions: 'Be kind.' }, 'live'],
  ['Anthropic tool call', { model: 'claude-tools', input: 'Weather?', tools }, 'live'],
];

describe("/v1/responses conforms to OpenAI's OpenAPI document", () => {
  it.each(CASES)('%s: the whole response is a Response', async (_name, body, kind) => {
    const res = await post(body, kind === 'test' ? testKey : liveKey);
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, unknown>;
    expectConforms('Response', json);
    expect(['completed', 'incomplete']).toContain(json.status);
  });

  it.each(CASES)('%s: every streamed event is a ResponseStreamEvent', async (_name, body, kind) => {
    const events = await streamEvents(body, kind === 'test' ? testKey : liveKey);
    expect(events.length).toBeGreaterThan(4);
    for (const event of events) expectConforms('ResponseStreamEvent', event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(['response.completed', 'response.incomplete']).toContain(events.at(-1)?.type);
  });

  it('a stream cut by the timeout: its error and response.failed events conform', async () => {
    const events = await streamEvents({ model: 'up-stall', input: 'Hi' }, liveKey);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
    for (const event of events) expectConforms('ResponseStreamEvent', event);
  });

  it('refusals are ErrorResponse bodies', async () => {
    for (const body of [
      { model: 'up-ok' },
      { model: 'nope', input: 'x' },
      { model: 'up-ok', input: 'x', store: true },
    ]) {
      const res = await post(body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectConforms('ErrorResponse', await res.json());
    }
  });
});

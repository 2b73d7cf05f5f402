/** The simulator's tool calls and structured outputs, through the real server with the openai SDK as the client. */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libraryEncoder } from '../src/modules/tokenizer';
import { createAccountWithKey } from './helpers/fixtures';
import { startTestServer, type TestServer } from './helpers/server';

let server: TestServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startTestServer({
    env: { SIMULATOR_TOKEN_DELAY_MS: '0', PLAN_FREE_RPM: '100000', BODY_LIMIT_BYTES: '65536' },
  });
  const key = (await createAccountWithKey(server)).key.key;
  client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

// Ajv is CommonJS: under ESM its class may arrive as the module's `default`.
const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const validate = ajv.compile(schema);
  expect(validate(value), `${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

const tokens = (text: string) => libraryEncoder().encode(text).length;

const weatherParams = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const flightParams = {
  type: 'object',
  properties: {
    origin: { type: 'string' },
    destination: { type: 'string' },
    date: { type: 'string', format: 'date' },
    passengers: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, exclusiveMaximum: 120 } },
        required: ['name', 'age'],
      },
    },
    cabin: { anyOf: [{ type: 'string', enum: ['economy', 'business'] }, { type: 'null' }] },
    flexible: { type: 'boolean' },
  },
  required: ['origin', 'destination', 'date', 'passengers', 'cabin', 'flexible'],
  additionalProperties: false,
};
const tools: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Current weather in a city', parameters: weatherParams },
  },
  {
    type: 'function',
    function: {
      name: 'searchFlights',
      description: 'Find flights between two airports',
      parameters: flightParams,
    },
  },
];
const schemaOf: Record<string, Record<string, unknown>> = {
  get_weather: weatherParams,
  searchFlights: flightParams,
};

const user = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];

function onlyCall(res: ChatCompletion, index = 0): ChatCompletionMessageFunctionToolCall {
  const calls = res.choices[index]?.message.tool_calls ?? [];
  expect(calls).toHaveLength(1);
  const call = calls[0];
  if (call?.type !== 'function') throw new Error('expected a function call');
  return call;
}

/** The call's arguments, parsed, after checking them against the function's schema. */
function validArguments(call: ChatCompletionMessageFunctionToolCall): Record<string, unknown> {
  const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
  const schema = schemaOf[call.function.name];
  if (!schema) throw new Error(`unknown function ${call.function.name}`);
  expectValid(schema, args);
  return args;
}

describe('simulated tool calls', () => {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: 'tessera-fast-4k',
    messages: user('Find flights from Lisbon to Tokyo for 2 people'),
    tools,
    tool_choice: 'required',
  };

  it('required: one call in OpenAI shape, arguments valid against the schema, usage the BPE count', async () => {
    const res = await client.chat.completions.create(body);
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.role).toBe('assistant');
    const call = onlyCall(res);
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(call.function.name).toBe('searchFlights');
    const args = validArguments(call);
    // Strings come from the user's words.
    expect(['Lisbon', 'Tokyo']).toContain(args.origin);
    expect(res.usage?.completion_tokens).toBe(tokens(call.function.name) + tokens(call.function.arguments));
  });

  it('is deterministic: the same request gets the same call; another prompt another id', async () => {
    const a = onlyCall(await client.chat.completions.create(body));
    const b = onlyCall(await client.chat.completions.create(body));
    expect(b).toEqual(a);
    const other = onlyCall(
      await client.chat.completions.create({ ...body, messages: user('Flights from Oslo to Rome') }),
    );
    expect(other.id).not.toBe(a.id);
    expect(other.function.arguments).not.toBe(a.function.arguments);
  });

  it('streams the call: id and name first, then argument pieces, finish tool_calls, the same usage', async () => {
    const whole = await client.chat.completions.create(body);
    const stream = await client.chat.completions.create({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const first = chunks[0]?.choices[0]?.delta;
    expect(first?.role).toBe('assistant');
    expect(first?.content).toBeNull();
    const head = first?.tool_calls?.[0];
    const expected = onlyCall(whole);
    expect(head).toEqual({
      index: 0,
      id: expected.id,
      type: 'function',
      function: { name: expected.function.name, arguments: '' },
    });
    const pieces = chunks.slice(1, -2).map((c) => c.choices[0]?.delta.tool_calls?.[0]);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(piece?.index).toBe(0);
      expect(piece?.id).toBeUndefined();
    }
    const args = pieces.map((p) => p?.function?.arguments ?? '').join('');
    expect(args).toBe(expected.function.arguments);
    validArguments({ ...expected, function: { name: expected.function.name, arguments: args } });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage).toEqual(whole.usage);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(tokens(expected.function.name) + tokens(args));
  });

  it('a named tool_choice calls that function, whatever the prompt says', async () => {
    const res = await client.chat.completions.create({
      ...body,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const call = onlyCall(res);
    expect(call.function.name).toBe('get_weather');
    validArguments(call);
  });

  it('auto picks the tool whose words match the request, and fills numbers from it within bounds', async () => {
    const res = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('What will the weather be in Paris over the next 3 days?'),
      tools,
    });
    const call = onlyCall(res);
    expect(call.function.name).toBe('get_weather');
    expect(validArguments(call)).toMatchObject({ city: 'Paris', days: 3 });
  });

  it('auto after a tool result answers in text about the result, so that a tool loop ends', async () => {
    const messages = user('What is the weather in Paris?');
    const first = await client.chat.completions.create({ model: 'tessera-fast-4k', messages, tools });
    const call = onlyCall(first);
    messages.push(first.choices[0]?.message as ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call.id,
      content: JSON.stringify({ temperature: 21, conditions: 'sunny', humidity: 'moderate' }),
    });
    const second = await client.chat.completions.create({ model: 'tessera-fast-4k', messages, tools });
    const choice = second.choices[0];
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.tool_calls ?? []).toEqual([]);
    expect(choice?.message.content).toMatch(/temperature|conditions|sunny|humidity|moderate/i);
    expect(second.usage?.completion_tokens).toBe(tokens(choice?.message.content ?? ''));
  });

  it('tool_choice none answers in text', async () => {
    const res = await client.chat.completions.create({ ...body, tool_choice: 'none' });
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(res.choices[0]?.message.content).toMatch(/flights|lisbon|tokyo|people/i);
  });

  it('n: each choice its own call, with its own id', async () => {
    const res = await client.chat.completions.create({ ...body, n: 3 });
    const calls = res.choices.map((_, i) => onlyCall(res, i));
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    for (const call of calls) validArguments(call);
    const produced = calls.reduce(
      (sum, c) => sum + tokens(c.function.name) + tokens(c.function.arguments),
      0,
    );
    expect(res.usage?.completion_tokens).toBe(produced);
  });

  it('max_tokens cuts the arguments: finish length, the cap counted', async () => {
    const res = await client.chat.completions.create({ ...body, max_tokens: 8 });
    expect(res.choices[0]?.finish_reason).toBe('length');
    const call = onlyCall(res);
    const whole = onlyCall(await client.chat.completions.create(body));
    expect(whole.function.arguments.startsWith(call.function.arguments)).toBe(true);
    expect(call.function.arguments.length).toBeLessThan(whole.function.arguments.length);
    expect(res.usage?.completion_tokens).toBe(8);
  });

  it('a function without parameters is called with {}', async () => {
    const res = await client.chat.completions.create({
      model: 'tessera-fast-4k',
      messages: user('What time is it?'),
      tools: [{ type: 'function', function: { name: 'current_time' } }],
      tool_choice: 'required',
    });
    expect(onlyCall(res).function.arguments).toBe('{}');
  });

  it('a tool_choice naming no given function is a 400 on tool_choice', async () => {
    const err = await client.chat.completions
      .create({ ...body, tool_choice: { type: 'function', function: { name: 'book_hotel' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tool_choice');
  });

  it('a schema whose smallest instance is huge is a 400 at once, streamed or not, not a held server', async () => {
    const huge = {
      type: 'object',
      properties: { rows: { type: 'array', minItems: 1_000_000_000 } },
      required: ['rows'],
    };
    for (const stream of [false, true]) {
      const err = await client.chat.completions
        .create({
          model: 'tessera-fast-4k',
          messages: user('Make rows'),
          stream,
          response_format: { type: 'json_schema', json_schema: { name: 'rows', schema: huge } },
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(
        'response_format.json_schema.schema',
      );
    }
    const tool = await client.chat.completions
      .create({
        model: 'tessera-fast-4k',
        messages: user('Make rows'),
        tools: [{ type: 'function', function: { name: 'make', parameters: huge } }],
        tool_choice: 'required',
      })
      .catch((e: unknown) => e);
    expect((tool as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
  });
});

describe('simulated structured outputs (response_format json_schema)', () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 3, maxLength: 40 },
      rating: { type: 'integer', minimum: 1, maximum: 5 },
      score: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      genre: { type: 'string', enum: ['drama', 'comedy', 'documentary'] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4, uniqueItems: true },
      director: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          born: { type: 'string', format: 'date' },
          email: { type: ['string', 'null'], format: 'email' },
        },
        required: ['name', 'born', 'email'],
        additionalProperties: false,
      },
      scenes: {
        type: 'array',
        items: { $ref: '#/$defs/scene' },
      },
    },
    required: ['title', 'rating', 'score', 'genre', 'tags', 'director', 'scenes'],
    additionalProperties: false,
    $defs: {
      scene: {
        type: 'object',
        properties: { number: { type: 'integer', minimum: 1, multipleOf: 5 }, place: { type: 'string' } },
        required: ['number', 'place'],
        additionalProperties: false,
      },
    },
  };
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: 'tessera-fast-4k',
    messages: user('Review the film Amelie, set in Paris, and give it 4 stars'),
    response_format: { type: 'json_schema', json_schema: { name: 'review', schema, strict: true } },
  };

  it('answers a JSON document valid against the schema, from the prompt, deterministically', async () => {
    const res = await client.chat.completions.create(body);
    const content = res.choices[0]?.message.content ?? '';
    const review = JSON.parse(content) as { title: string; rating: number };
    expectValid(schema, review);
    expect(['Amelie', 'Paris']).toContain(review.title);
    expect(review.rating).toBe(4);
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage?.completion_tokens).toBe(tokens(content));
    const again = await client.chat.completions.create(body);
    expect(again.choices[0]?.message.content).toBe(content);
  });

  it('streams the same document', async () => {
    const whole = await client.chat.completions.create(body);
    const stream = await client.chat.completions.create({ ...body, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(whole.choices[0]?.message.content);
  });

  it('json_object still answers {"answer": …}', async () => {
    const res = await client.chat.completions.create({
      ...body,
      response_format: { type: 'json_object' },
    });
    expect(Object.keys(JSON.parse(res.choices[0]?.message.content ?? ''))).toEqual(['answer']);
  });
});

describe("the SDK's own helpers against the simulator", () => {
  it('runTools: the SDK calls the function with the arguments, sends its result back, and ends on text', async () => {
    const seen: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: 'tessera-fast-4k',
      messages: user('What is the weather in Paris, in celsius?'),
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Get the weather forecast for a city',
            parameters: weatherParams,
            function: (args: unknown) => {
              seen.push(args);
              return { temperature: 21, conditions: 'sunny' };
            },
            parse: JSON.parse,
          },
        },
      ],
    });
    const content = await runner.finalContent();
    expect(seen).toHaveLength(1);
    expectValid(weatherParams, seen[0]);
    expect((seen[0] as { city: string }).city).toBe('Paris');
    expect(content).toMatch(/temperature|conditions|sunny/i);
    // Two model calls: the tool call, then the answer about its result.
    expect(runner.messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
  });

  it('stream(): the streaming helper assembles the tool call and the final completion', async () => {
    const stream = client.chat.completions.stream({
      model: 'tessera-fast-4k',
      messages: user('What is the weather in Paris?'),
      tools,
      tool_choice: 'required',
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0] as ChatCompletionMessageFunctionToolCall;
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(JSON.parse(call.function.arguments)).toBeTypeOf('object');
    expect(final.usage?.total_tokens).toBe(
      (final.usage?.prompt_tokens ?? 0) + (final.usage?.completion_tokens ?? 0),
    );
  });
});

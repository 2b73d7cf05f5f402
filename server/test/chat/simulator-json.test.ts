/** The simulator's structured outputs, and the openai SDK's own helpers (runTools, stream()) against it. */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectValid,
  tokens,
  tools,
  user,
  useSimulatorClient,
  weatherParams,
} from '../helpers/simulator-suite';

const suite = useSimulatorClient();
let client: OpenAI;
beforeAll(() => {
  client = suite.client;
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

  it("honours the schema's string patterns, with their lengths", async () => {
    const patterned = {
      type: 'object',
      properties: {
        order: { type: 'string', pattern: '^ORD-[A-Z]{2}\\d{6}$' },
        colour: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
        slug: { type: 'string', pattern: '^[a-z]+(?:-[a-z]+)*$', minLength: 12, maxLength: 16 },
        initials: { type: 'string', pattern: '^\\p{Lu}{2,3}$' },
      },
      required: ['order', 'colour', 'slug', 'initials'],
      additionalProperties: false,
    };
    for (const prompt of ['Track my parcel', 'Where is order 42 from Lyon?', 'x']) {
      const res = await client.chat.completions.create({
        model: 'tessera-fast-4k',
        messages: user(prompt),
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'order', schema: patterned, strict: true },
        },
      });
      const doc = JSON.parse(res.choices[0]?.message.content ?? '') as Record<string, string>;
      expectValid(patterned, doc);
      expect(doc.order).toMatch(/^ORD-[A-Z]{2}\d{6}$/);
    }
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
  /** The SDK's runTools on one prompt with a get_weather function that `run` implements. */
  function runWeather(prompt: string, run: (args: { city: string }) => unknown) {
    return client.chat.completions.runTools({
      model: 'tessera-fast-4k',
      messages: user(prompt),
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Get the weather forecast for a city',
            parameters: weatherParams,
            function: run,
            parse: JSON.parse,
          },
        },
      ],
    });
  }

  it('runTools: the SDK calls the function with the arguments, sends its result back, and ends on text', async () => {
    const seen: unknown[] = [];
    const runner = runWeather('What is the weather in Paris, in celsius?', (args) => {
      seen.push(args);
      return { temperature: 21, conditions: 'sunny' };
    });
    const content = await runner.finalContent();
    expect(seen).toHaveLength(1);
    expectValid(weatherParams, seen[0]);
    expect((seen[0] as { city: string }).city).toBe('Paris');
    expect(content).toMatch(/temperature|conditions|sunny/i);
    // Two model calls: the tool call, then the answer about its result.
    expect(runner.messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
  });

  it('runTools with parallel calls: the SDK runs the function once a city, sends both results, ends on text', async () => {
    const cities: string[] = [];
    const runner = runWeather('What is the weather in Paris and Tokyo?', (args) => {
      cities.push(args.city);
      return { city: args.city, temperature: cities.length * 10 };
    });
    const content = await runner.finalContent();
    expect(cities).toEqual(['Paris', 'Tokyo']);
    expect(runner.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(runner.messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
    expect(content).toMatch(/paris|tokyo|temperature/i);
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

/** The simulator's tool calls, through the real server with the openai SDK as the client. */
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  onlyCall,
  tokens,
  tools,
  user,
  useSimulatorClient,
  validArguments,
} from '../helpers/simulator-suite';

const suite = useSimulatorClient();
let client: OpenAI;
beforeAll(() => {
  client = suite.client;
});

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

  it('parallel calls: a listed name each, in OpenAI shape, streamed as OpenAI streams them', async () => {
    const weather: ChatCompletionCreateParamsNonStreaming = {
      model: 'tessera-fast-4k',
      messages: user('What is the weather in Paris, New York and Tokyo?'),
      tools,
    };
    const res = await client.chat.completions.create(weather);
    const calls = (res.choices[0]?.message.tool_calls ?? []).filter((c) => c.type === 'function');
    expect(res.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => c.function.name)).toEqual(['get_weather', 'get_weather', 'get_weather']);
    expect(calls.map((c) => validArguments(c).city)).toEqual(['Paris', 'New York', 'Tokyo']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    const produced = calls.reduce(
      (sum, c) => sum + tokens(c.function.name) + tokens(c.function.arguments),
      0,
    );
    expect(res.usage?.completion_tokens).toBe(produced);

    // Streamed: each call opens with its index, id and name, then its arguments, one call after the other.
    const stream = await client.chat.completions.create({ ...weather, stream: true });
    const deltas: NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number][] = [];
    for await (const chunk of stream) deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    const openings = deltas.filter((d) => d.id !== undefined);
    expect(openings.map((d) => [d.index, d.id, d.function?.name])).toEqual(
      calls.map((c, i) => [i, c.id, 'get_weather']),
    );
    expect(deltas.map((d) => d.index)).toEqual([...deltas.map((d) => d.index)].sort());
    for (const [i, call] of calls.entries()) {
      const args = deltas
        .filter((d) => d.index === i)
        .map((d) => d.function?.arguments ?? '')
        .join('');
      expect(args).toBe(call.function.arguments);
    }

    // parallel_tool_calls: false gets one call; so does a request that lists nothing.
    const one = await client.chat.completions.create({ ...weather, parallel_tool_calls: false });
    expect(['Paris', 'New York', 'Tokyo']).toContain(validArguments(onlyCall(one)).city);
    onlyCall(await client.chat.completions.create({ ...weather, messages: user('Weather in Paris?') }));
    // A cap that ends inside the second call: it is cut there, the third is not made.
    const first = calls[0];
    if (!first) throw new Error('no call');
    const cap = tokens(first.function.name) + tokens(first.function.arguments) + 3;
    const cut = await client.chat.completions.create({ ...weather, max_tokens: cap });
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(cut.choices[0]?.message.tool_calls).toHaveLength(2);
    expect(cut.usage?.completion_tokens).toBe(cap);
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

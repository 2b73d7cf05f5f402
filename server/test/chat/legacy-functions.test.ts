/**
 * OpenAI's deprecated function-calling API (`functions`, `function_call`, `role: "function"`), as clients
 * written before tools send it: translated to tools for every provider, answered as OpenAI answered it.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { messages, useProviderSuite } from '../helpers/provider-suite';
import { expectValid, weatherParams } from '../helpers/simulator-suite';

const suite = useProviderSuite();

/** The SDK's 400 for a refused request, with its param (and code when given). */
async function expectBadRequest(call: Promise<unknown>, param: string, code?: string): Promise<void> {
  const err = await call.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  const e = err as InstanceType<typeof OpenAI.BadRequestError>;
  expect(e.param).toBe(param);
  if (code) expect(e.code).toBe(code);
}

const functions = [
  { name: 'getWeather', description: 'The weather in a city', parameters: weatherParams },
  { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
];

/** The SDK with the test key: the simulator answers, whatever the model. */
function simulator() {
  return suite.live.withOptions({ apiKey: suite.testKey });
}

describe('the deprecated functions API', () => {
  it('the simulator calls a function: function_call, finish function_call, no tool_calls', async () => {
    const res = await simulator().chat.completions.create({
      model: 'up-ok',
      messages: [{ role: 'user', content: 'What is the weather in Paris in celsius?' }],
      functions,
      function_call: { name: 'getWeather' },
    });
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe('function_call');
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(choice?.message.function_call?.name).toBe('getWeather');
    expectValid(weatherParams, JSON.parse(choice?.message.function_call?.arguments ?? ''));

    // Streamed: the name first, then the arguments in pieces, as OpenAI streamed function calls.
    const stream = await simulator().chat.completions.create({
      model: 'up-ok',
      messages: [{ role: 'user', content: 'What is the weather in Paris in celsius?' }],
      functions,
      function_call: { name: 'getWeather' },
      stream: true,
    });
    let name = '';
    let args = '';
    const finishes: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      expect(delta?.tool_calls).toBeUndefined();
      name += delta?.function_call?.name ?? '';
      args += delta?.function_call?.arguments ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(name).toBe('getWeather');
    expect(args).toBe(choice?.message.function_call?.arguments);
    expect(finishes).toEqual(['function_call']);
  });

  it("the function's result goes back as a function message, and the model answers in text", async () => {
    const res = await simulator().chat.completions.create({
      model: 'up-ok',
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          function_call: { name: 'getWeather', arguments: '{"city":"Paris","unit":"celsius"}' },
        },
        { role: 'function', name: 'getWeather', content: '{"temperature":21}' },
      ],
      functions,
    });
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.choices[0]?.message.content).toEqual(expect.any(String));
    expect(res.choices[0]?.message.function_call).toBeUndefined();
  });

  it('an OpenAI-compatible upstream is asked with tools, and its tool call comes back as function_call', async () => {
    const res = await suite.live.chat.completions.create({
      model: 'up-tools',
      messages: [
        ...messages,
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"a"}' } },
        { role: 'function', name: 'lookup', content: 'found a' },
        { role: 'user', content: 'And b?' },
      ],
      functions,
      function_call: 'auto',
    });
    const sent = suite.openai.requests[0]?.body;
    expect(sent?.functions).toBeUndefined();
    expect(sent?.function_call).toBeUndefined();
    expect(sent?.tools).toEqual(functions.map((f) => ({ type: 'function', function: f })));
    expect(sent?.tool_choice).toBe('auto');
    expect(sent?.parallel_tool_calls).toBe(false);
    const sentMessages = sent?.messages as Record<string, unknown>[];
    expect(sentMessages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_fn_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } },
      ],
    });
    expect(sentMessages[3]).toEqual({ role: 'tool', tool_call_id: 'call_fn_1', content: 'found a' });
    expect(res.choices[0]?.message.function_call).toEqual({ name: 'lookup', arguments: '{"q":"x"}' });
    expect(res.choices[0]?.message.tool_calls).toBeUndefined();
    expect(res.choices[0]?.finish_reason).toBe('function_call');
  });

  it("Anthropic's tool_use comes back as function_call, whole and streamed", async () => {
    const whole = await suite.live.chat.completions.create({ model: 'claude-tools', messages, functions });
    expect(whole.choices[0]?.message.function_call).toEqual({ name: 'lookup', arguments: '{"q":"x"}' });
    expect(whole.choices[0]?.finish_reason).toBe('function_call');
    expect(suite.anthropic.requests[0]?.body.tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    const stream = await suite.live.chat.completions.create({
      model: 'claude-tools',
      messages,
      functions,
      stream: true,
    });
    let args = '';
    let name = '';
    let finish = '';
    for await (const chunk of stream) {
      name += chunk.choices[0]?.delta.function_call?.name ?? '';
      args += chunk.choices[0]?.delta.function_call?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ q: 'x' });
    expect(finish).toBe('function_call');
  });

  it('refuses functions next to tools, and a function message without its name, naming the field', async () => {
    await expectBadRequest(
      suite.live.chat.completions.create({
        model: 'up-ok',
        messages,
        functions,
        tools: [{ type: 'function', function: { name: 'other' } }],
      }),
      'functions',
      'invalid_value',
    );
    await expectBadRequest(
      suite.live.chat.completions.create({
        model: 'up-ok',
        messages: [...messages, { role: 'function', content: 'x' } as never],
        functions,
      }),
      'messages[2].name',
    );
  });
});

/** What Anthropic's Messages API is sent for OpenAI's fields it has no twin for: response_format, temperature with top_p, tool call arguments, empty messages. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKE_JSON, FAKE_JSON_PIECES, FAKE_TEXT, type FakeUpstream } from '../helpers/fake-upstreams';
import { messages, useProviderSuite } from '../helpers/provider-suite';

const suite = useProviderSuite();
let anthropic: FakeUpstream;
let live: OpenAI;
beforeAll(() => {
  ({ anthropic, live } = suite);
});

const schema = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer', 'confidence'],
  additionalProperties: false,
};
const jsonSchema = {
  type: 'json_schema' as const,
  json_schema: { name: 'reply', description: 'An answer and how sure', schema, strict: true },
};

async function streamed(params: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'>) {
  const stream = await live.chat.completions.create({ ...params, stream: true });
  let content = '';
  const finishes: string[] = [];
  /** The names of the tool calls, as their first deltas give them. */
  const calls: string[] = [];
  for await (const c of stream) {
    content += c.choices[0]?.delta.content ?? '';
    for (const t of c.choices[0]?.delta.tool_calls ?? []) if (t.function?.name) calls.push(t.function.name);
    if (c.choices[0]?.finish_reason) finishes.push(c.choices[0].finish_reason);
  }
  return { content, finishes, calls };
}

describe('response_format on Anthropic: the answer as a tool the model is made to call', () => {
  it('json_schema: the schema becomes the forced tool, whose input is the content, finish stop', async () => {
    const res = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      response_format: jsonSchema,
    });
    const sent = anthropic.requests[0]?.body;
    expect(sent?.tools).toEqual([
      {
        name: 'json_response',
        description: expect.stringContaining("'reply' (An answer and how sure)"),
        input_schema: schema,
      },
    ]);
    expect(sent?.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
    const choice = res.choices[0];
    expect(JSON.parse(choice?.message.content ?? '')).toEqual(FAKE_JSON);
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.tool_calls).toBeUndefined();
    // The SDK's own parse helper reads it as the schema's object.
    const parsed = await live.chat.completions.parse({
      model: 'claude-ok',
      messages,
      response_format: jsonSchema,
    });
    expect(parsed.choices[0]?.message.parsed).toEqual(FAKE_JSON);
  });

  it('json_schema streamed: the tool input arrives as content deltas', async () => {
    const { content, finishes, calls } = await streamed({
      model: 'claude-ok',
      messages,
      response_format: jsonSchema,
    });
    expect(content).toBe(FAKE_JSON_PIECES.join(''));
    expect(JSON.parse(content)).toEqual(FAKE_JSON);
    expect(finishes).toEqual(['stop']);
    expect(calls).toEqual([]);
  });

  it("json_object next to the client's own tools: the model must call a tool, theirs or the JSON's", async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      },
    ];
    const toolNames = (n: number) =>
      ((anthropic.requests[n]?.body.tools ?? []) as { name: string }[]).map((t) => t.name);
    // tool_choice 'auto' (or none given): Anthropic's 'any' over both, so the answer is never plain text.
    const whole = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      tools,
      response_format: { type: 'json_object' },
      parallel_tool_calls: false,
    });
    expect(toolNames(0)).toEqual(['lookup', 'json_response']);
    expect(anthropic.requests[0]?.body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(JSON.parse(whole.choices[0]?.message.content ?? '')).toEqual(FAKE_JSON);
    expect(whole.choices[0]?.finish_reason).toBe('stop');
    const stream = await streamed({
      model: 'claude-ok',
      messages,
      tools,
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
    });
    expect(anthropic.requests[1]?.body.tool_choice).toEqual({ type: 'any' });
    expect(JSON.parse(stream.content)).toEqual(FAKE_JSON);
    expect(stream.finishes).toEqual(['stop']);
    // tool_choice 'none' with JSON asked for: the JSON is the only answer left, as on OpenAI.
    await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      tools,
      tool_choice: 'none',
      response_format: { type: 'json_object' },
    });
    expect(anthropic.requests[2]?.body.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
    expect(toolNames(2)).toEqual(['json_response']);
    // 'required' and a named function: this turn must call the client's tools, so the JSON is not offered.
    for (const tool_choice of ['required', { type: 'function', function: { name: 'lookup' } }] as const) {
      await live.chat.completions.create({
        model: 'claude-ok',
        messages,
        tools,
        tool_choice,
        response_format: { type: 'json_object' },
      });
    }
    expect(toolNames(3)).toEqual(['lookup']);
    expect(anthropic.requests[3]?.body.tool_choice).toEqual({ type: 'any' });
    expect(toolNames(4)).toEqual(['lookup']);
    expect(anthropic.requests[4]?.body.tool_choice).toEqual({ type: 'tool', name: 'lookup' });
  });

  it("a call of the client's tool next to the JSON: both kept, text dropped, finish tool_calls", async () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup' } }];
    const res = await live.chat.completions.create({
      model: 'claude-tools',
      messages,
      tools,
      response_format: { type: 'json_object' },
    });
    const message = res.choices[0]?.message;
    expect(JSON.parse(message?.content ?? '')).toEqual(FAKE_JSON);
    expect(message?.tool_calls?.map((c) => [c.type === 'function' && c.function.name, c.id])).toEqual([
      ['lookup', 'toolu_1'],
    ]);
    expect(res.choices[0]?.finish_reason).toBe('tool_calls');
    const stream = await streamed({
      model: 'claude-tools',
      messages,
      tools,
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(stream.content)).toEqual(FAKE_JSON);
    expect(stream.calls).toEqual(['lookup']);
    expect(stream.finishes).toEqual(['tool_calls']);
  });

  it('refuses a schema whose root is not an object, and the reserved tool name, with a 400 naming the field', async () => {
    const bad = await live.chat.completions
      .create({
        model: 'claude-ok',
        messages,
        response_format: { type: 'json_schema', json_schema: { name: 'list', schema: { type: 'array' } } },
      })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(
      'response_format.json_schema.schema',
    );
    const clash = await live.chat.completions
      .create({
        model: 'claude-ok',
        messages,
        tools: [{ type: 'function', function: { name: 'json_response' } }],
        response_format: { type: 'json_object' },
      })
      .catch((e: unknown) => e);
    expect((clash as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
    expect(anthropic.requests).toHaveLength(0);
    // Text asked for explicitly is plain text.
    const text = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      response_format: { type: 'text' },
    });
    expect(text.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(anthropic.requests[0]?.body).not.toHaveProperty('tools');
  });
});

describe('other fields Anthropic takes differently', () => {
  it('sends temperature alone when both temperature and top_p are given (newer models refuse both)', async () => {
    await live.chat.completions.create({ model: 'claude-ok', messages, temperature: 1.5, top_p: 0.9 });
    expect(anthropic.requests[0]?.body.temperature).toBe(1);
    expect(anthropic.requests[0]?.body).not.toHaveProperty('top_p');
    await live.chat.completions.create({ model: 'claude-ok', messages, top_p: 0.9 });
    expect(anthropic.requests[1]?.body.top_p).toBe(0.9);
    expect(anthropic.requests[1]?.body).not.toHaveProperty('temperature');
  });

  it('sends parallel_tool_calls: false as disable_parallel_tool_use in the tool choice', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup' } }];
    await live.chat.completions.create({ model: 'claude-ok', messages, tools, parallel_tool_calls: false });
    expect(anthropic.requests[0]?.body.tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(anthropic.requests[1]?.body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    await live.chat.completions.create({ model: 'claude-ok', messages, tools, parallel_tool_calls: true });
    expect(anthropic.requests[2]?.body).not.toHaveProperty('tool_choice');
  });

  it('refuses tool call arguments that are not a JSON object, naming them; empty arguments are {}', async () => {
    const history = (args: string): OpenAI.Chat.ChatCompletionMessageParam[] => [
      { role: 'user', content: 'Find x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_0', type: 'function', function: { name: 'lookup', arguments: args } }],
      },
      { role: 'tool', tool_call_id: 'toolu_0', content: 'nothing' },
    ];
    for (const args of ['{"q": "w"', '[1, 2]', '"w"']) {
      const err = await live.chat.completions
        .create({ model: 'claude-ok', messages: history(args) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      const e = err as InstanceType<typeof OpenAI.BadRequestError>;
      expect(e.param).toBe('messages[1].tool_calls[0].function.arguments');
      expect(e.message).toContain('expected a JSON object');
    }
    expect(anthropic.requests).toHaveLength(0);
    await live.chat.completions.create({ model: 'claude-ok', messages: history('') });
    const sent = anthropic.requests[0]?.body.messages as { content: { input?: unknown }[] }[];
    expect(sent[1]?.content[0]?.input).toEqual({});
  });

  it('leaves empty messages out, sends a system-only request as the user turn, and refuses a request with nothing', async () => {
    await live.chat.completions.create({
      model: 'claude-ok',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '' },
        { role: 'user', content: [{ type: 'text', text: '' }] },
        { role: 'user', content: 'Still there?' },
      ],
    });
    expect(anthropic.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'Still there?' },
        ],
      },
    ]);
    await live.chat.completions.create({
      model: 'claude-ok',
      messages: [{ role: 'system', content: 'Say hello.' }],
    });
    expect(anthropic.requests[1]?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Say hello.' }] },
    ]);
    expect(anthropic.requests[1]?.body).not.toHaveProperty('system');
    const err = await live.chat.completions
      .create({ model: 'claude-ok', messages: [{ role: 'user', content: '' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
    expect(anthropic.requests).toHaveLength(2);
  });
});

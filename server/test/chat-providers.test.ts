/** The real providers behind the gateway, through fake upstreams that speak their wire formats: OpenAI-compatible and Anthropic, plain and streamed, tools included. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { countingThread, countPromptTokens, countTokens } from '../src/modules/tokenizer';
import { type AllowanceSpy, eventually } from './helpers/chat-setup';
import {
  FAKE_TEXT,
  type FakeUpstream,
  LINGER_MS,
  LONG_WORDS,
  TOOL_CALL_PIECES,
} from './helpers/fake-upstreams';
import { ANTHROPIC_SECRET, messages, OPENAI_SECRET, useProviderSuite } from './helpers/provider-suite';
import type { TestServer } from './helpers/server';

const suite = useProviderSuite();
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestServer;
let live: OpenAI;
let testKey: string;
let spy: AllowanceSpy;
beforeAll(() => {
  ({ openai, anthropic, server, live, testKey, spy } = suite);
});

describe('OpenAI-compatible upstream', () => {
  it('non-streamed: our id and model, upstream usage, the upstream model name and key sent upstream', async () => {
    const res = await live.chat.completions.create({ model: 'up-ok', messages });
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.id).not.toBe('chatcmpl-upstream');
    expect(res.model).toBe('up-ok');
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(res.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const sent = openai.requests[0];
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.body.model).toBe('ok');
    expect(sent?.headers.authorization).toBe(`Bearer ${OPENAI_SECRET}`);
    // The live key reserved prompt + cap and settled to the upstream's real usage.
    expect(spy.reserved).toHaveLength(1);
    expect(spy.reserved[0]).toBeGreaterThan(2048);
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([18]);
  });

  it('relays a stream chunk by chunk with our id, adding the usage chunk', async () => {
    const stream = await live.chat.completions.create({
      model: 'up-ok',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.id).not.toBe('chatcmpl-upstream');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FAKE_TEXT);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(openai.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it('ends the stream at the upstream [DONE], and keeps the connection when the upstream ends late', async () => {
    // The upstream holds its response open after [DONE]: the client gets the end at once, and the rest of the
    // body is read in the background, so the connection serves the next call instead of being closed.
    await live.chat.completions.create({ model: 'up-linger', messages });
    await new Promise((r) => setTimeout(r, LINGER_MS + 100));
    const before = openai.connections;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const stream = await live.chat.completions.create({ model: 'up-linger', messages, stream: true });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      expect(text).toBe(FAKE_TEXT);
      expect(performance.now() - started).toBeLessThan(LINGER_MS);
      await new Promise((r) => setTimeout(r, LINGER_MS + 100));
    }
    expect(openai.connections).toBe(before);
  });

  it('passes tool calls through', async () => {
    const res = await live.chat.completions.create({ model: 'up-tools', messages });
    expect(res.choices[0]?.finish_reason).toBe('tool_calls');
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('lookup');
  });

  it('meters a stream whose upstream reports no usage by what it relayed: text, tool calls, a long answer', async () => {
    // Some OpenAI-compatible servers ignore stream_options: Tessera counts the text it relayed with the BPE.
    // A long answer is counted on the counting thread, off the event loop, as long prompts are.
    expect(countingThread.running).toBe(false);
    const cases: [string, string][] = [
      ['up-nousage', FAKE_TEXT],
      ['up-toolsnousage', TOOL_CALL_PIECES.join('')],
      ['up-longnousage', LONG_WORDS.join('')],
    ];
    for (const [i, [model, produced]] of cases.entries()) {
      const stream = await live.chat.completions.create({
        model,
        messages,
        max_tokens: 100,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      const prompt = (spy.reserved[i] ?? 0) - 100;
      const completion = countTokens(produced);
      expect(completion).toBeGreaterThan(model === 'up-longnousage' ? 5_000 : 3);
      expect(chunks.at(-1)?.usage).toEqual({
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      });
      await eventually(() => spy.settled.length === i + 1);
      expect(spy.settled[i]).toBe(prompt + completion);
    }
    const toolCall = await live.chat.completions.create({ model: 'up-toolsnousage', messages, stream: true });
    const args: string[] = [];
    for await (const c of toolCall) args.push(c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '');
    expect(args.join('')).toBe(TOOL_CALL_PIECES.slice(1).join(''));
    await eventually(() => countingThread.running, 15_000);
    // With the thread up: one count serves both the usage chunk and the settlement.
    // (Each settlement comes after its count: once all are in, every count is done.)
    await eventually(() => spy.settled.length === cases.length + 1);
    const answered = countingThread.answered;
    const again = await live.chat.completions.create({
      model: 'up-longnousage',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const c of again)
      if (c.usage) expect(c.usage.completion_tokens).toBe(countTokens(LONG_WORDS.join('')));
    await eventually(() => spy.settled.length === cases.length + 2);
    expect(countingThread.answered).toBe(answered + 1);
  });

  it('sends the cap in force upstream, under the field the catalogue names for the model', async () => {
    // No cap from the client: the model's maximum (the catalogue's 2048), which is what the allowance reserved.
    await live.chat.completions.create({ model: 'up-ok', messages });
    expect(openai.requests[0]?.body.max_tokens).toBe(2048);
    expect(openai.requests[0]?.body).not.toHaveProperty('max_completion_tokens');
    expect(spy.reserved[0]).toBe(2048 + countPromptTokens(messages));
    // The client's cap, under whichever name it came.
    await live.chat.completions.create({ model: 'up-ok', messages, max_completion_tokens: 50 });
    expect(openai.requests[1]?.body.max_tokens).toBe(50);
    expect(openai.requests[1]?.body).not.toHaveProperty('max_completion_tokens');
    // A model configured with `max_tokens_field: max_completion_tokens` (OpenAI's reasoning models refuse
    // max_tokens) gets the cap under that name only, streamed or not.
    await live.chat.completions.create({ model: 'up-reasoning', messages, max_tokens: 40 });
    expect(openai.requests[2]?.body.max_completion_tokens).toBe(40);
    expect(openai.requests[2]?.body).not.toHaveProperty('max_tokens');
    const stream = await live.chat.completions.create({ model: 'up-reasoning', messages, stream: true });
    for await (const _ of stream);
    expect(openai.requests[3]?.body.max_completion_tokens).toBe(2048);
    expect(openai.requests[3]?.body).not.toHaveProperty('max_tokens');
  });

  it("passes OpenAI's other request fields through, but not those acting on the operator's account", async () => {
    await live.chat.completions.create({
      model: 'up-ok',
      messages,
      logprobs: true,
      top_logprobs: 2,
      parallel_tool_calls: false,
      logit_bias: { '50256': -100 },
      reasoning_effort: 'low',
      seed: 7,
      user: 'end-user-1',
      store: true,
      metadata: { team: 'a' },
      service_tier: 'priority',
    });
    const body = openai.requests[0]?.body ?? {};
    expect(body).toMatchObject({
      model: 'ok',
      logprobs: true,
      top_logprobs: 2,
      parallel_tool_calls: false,
      logit_bias: { '50256': -100 },
      reasoning_effort: 'low',
      seed: 7,
      user: 'end-user-1',
    });
    expect(body).not.toHaveProperty('store');
    expect(body).not.toHaveProperty('metadata');
    expect(body).not.toHaveProperty('service_tier');
  });

  it("relays the upstream's log probabilities, non-streamed and streamed", async () => {
    const res = await live.chat.completions.create({ model: 'up-logprobs', messages, logprobs: true });
    const content = res.choices[0]?.logprobs?.content ?? [];
    expect(content.map((t) => t.token).join('')).toBe(FAKE_TEXT);
    expect(content[0]).toMatchObject({ logprob: -0.25, top_logprobs: [{ logprob: -0.5 }] });
    const stream = await live.chat.completions.create({
      model: 'up-logprobs',
      messages,
      logprobs: true,
      stream: true,
    });
    const tokens: string[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice?.delta.content) continue;
      expect(choice.logprobs?.content?.[0]?.token).toBe(choice.delta.content);
      tokens.push(choice.delta.content);
    }
    expect(tokens.join('')).toBe(FAKE_TEXT);
    // Models that report none keep `logprobs: null`.
    const plain = await live.chat.completions.create({ model: 'up-ok', messages });
    expect(plain.choices[0]?.logprobs).toBeNull();
  });

  it('streams the whole answer of an upstream that ignores stream: true', async () => {
    const stream = await live.chat.completions.create({
      model: 'up-whole',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(openai.requests[0]?.body.stream).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: FAKE_TEXT });
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null).filter(Boolean)).toEqual(['stop']);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([18]);
  });

  it('test keys never reach the upstream nor the allowance', async () => {
    const sim = new OpenAI({ apiKey: testKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const res = await sim.chat.completions.create({ model: 'up-ok', messages });
    expect(res.choices[0]?.message.content).not.toBe(FAKE_TEXT);
    expect(openai.requests).toHaveLength(0);
    expect(spy.reserved).toHaveLength(0);
  });

  it('owned_by names the configured provider', async () => {
    const list = await live.models.list();
    expect(list.data.find((m) => m.id === 'up-ok')?.owned_by).toBe('openai');
    expect(list.data.find((m) => m.id === 'claude-ok')?.owned_by).toBe('anthropic');
  });
});

describe('Anthropic Messages API', () => {
  it('translates the request and the answer', async () => {
    const res = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      stop: 'END',
      temperature: 1.5,
    });
    expect(res.choices[0]?.message.content).toBe(FAKE_TEXT);
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
    const sent = anthropic.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(ANTHROPIC_SECRET);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toMatchObject({
      model: 'ok',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      stop_sequences: ['END'],
      temperature: 1,
      max_tokens: 2048,
    });
    const capped = await live.chat.completions.create({ model: 'claude-ok', messages, max_tokens: 3 });
    expect(capped.choices[0]?.finish_reason).toBe('length');
  });

  it('translates image parts into image blocks, in order, and refuses parts it cannot take with a 400', async () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await live.chat.completions.create({
      model: 'claude-ok',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            { type: 'image_url', image_url: { url: 'https://images.example/cat.jpg', detail: 'low' } },
            { type: 'text', text: 'Which is brighter?' },
          ],
        },
      ],
    });
    expect(anthropic.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these:' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          { type: 'image', source: { type: 'url', url: 'https://images.example/cat.jpg' } },
          { type: 'text', text: 'Which is brighter?' },
        ],
      },
    ]);
    const refused = async (content: OpenAI.Chat.ChatCompletionContentPart[]) => {
      const err = await live.chat.completions
        .create({ model: 'claude-ok', messages: [{ role: 'user', content }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return err as InstanceType<typeof OpenAI.BadRequestError>;
    };
    const audio = await refused([
      { type: 'text', text: 'Transcribe:' },
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
    ]);
    expect(audio.param).toBe('messages[0].content[1].type');
    expect(audio.message).toContain("'input_audio'");
    const ftp = await refused([{ type: 'image_url', image_url: { url: 'ftp://images.example/cat.jpg' } }]);
    expect(ftp.param).toBe('messages[0].content[0].image_url.url');
    // Refused before any call upstream.
    expect(anthropic.requests).toHaveLength(1);
  });

  it('translates its stream events into OpenAI chunks', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(FAKE_TEXT);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 13, completion_tokens: 8, total_tokens: 21 });
  });
});

describe('Anthropic tool use', () => {
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup',
        description: 'Looks up',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    },
  ];
  const history = [
    { role: 'user' as const, content: 'Find x' },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'toolu_0', type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"w"}' } },
      ],
    },
    { role: 'tool' as const, tool_call_id: 'toolu_0', content: 'nothing for w' },
  ];

  it('translates tools, tool calls and tool results both ways', async () => {
    const res = await live.chat.completions.create({
      model: 'claude-tools',
      messages: history,
      tools,
      tool_choice: 'required',
    });
    const sent = anthropic.requests[0]?.body;
    expect(sent?.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks up',
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ]);
    expect(sent?.tool_choice).toEqual({ type: 'any' });
    expect(sent?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Find x' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_0', name: 'lookup', input: { q: 'w' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'nothing for w' }] },
    ]);
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Let me look.');
    expect(choice?.message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
  });

  it('streams tool calls as OpenAI tool_call deltas', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-tools',
      messages: history,
      tools,
      stream: true,
    });
    let args = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const c of stream) {
      const call = c.choices[0]?.delta.tool_calls?.[0];
      if (call?.function?.name) name = call.function.name;
      args += call?.function?.arguments ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ q: 'x' });
    expect(finish).toBe('tool_calls');
  });
});

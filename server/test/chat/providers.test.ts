/** The real providers behind the gateway, through fake upstreams that speak their wire formats: OpenAI-compatible and Anthropic, plain and streamed, tools included. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { countingThread, countTokens } from '../../src/modules/tokenizer';
import { type AllowanceSpy, eventually } from '../helpers/chat-setup';
import {
  FAKE_TEXT,
  type FakeUpstream,
  LINGER_MS,
  LONG_WORDS,
  TOOL_CALL_PIECES,
} from '../helpers/fake-upstreams';
import { ANTHROPIC_SECRET, messages, OPENAI_SECRET, useProviderSuite } from '../helpers/provider-suite';
import type { TestServer } from '../helpers/server';

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
    // A long answer is counted on the counting thread, off the event loop, as long prompts are. The thread is
    // the process's: a file run before this one in the same worker may have started it.
    await countingThread.stop();
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

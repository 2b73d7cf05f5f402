/** What an upstream is sent and what comes back of it: the completion cap, OpenAI's other request fields, log probabilities, usage breakdowns, whole answers to stream requests, Anthropic's image blocks. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../src/modules/tokenizer';
import { COOKBOOK_WEATHER_TOOL } from '../fixtures/tools';
import { type AllowanceSpy, eventually } from '../helpers/chat-setup';
import { FAKE_REASONING, FAKE_TEXT, type FakeUpstream } from '../helpers/fake-upstreams';
import { messages, streamedChunks, useProviderSuite } from '../helpers/provider-suite';

const suite = useProviderSuite();
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let live: OpenAI;
let spy: AllowanceSpy;
beforeAll(() => {
  ({ openai, anthropic, live, spy } = suite);
});

describe('OpenAI-compatible upstream: what it is sent and what comes back', () => {
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
    const chunks = await streamedChunks(live, 'up-whole');
    expect(openai.requests[0]?.body.stream).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: FAKE_TEXT });
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null).filter(Boolean)).toEqual(['stop']);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([18]);
  });
});

describe("the upstream's usage breakdowns", () => {
  it('relays cached and reasoning tokens from an OpenAI-compatible upstream, whole and streamed', async () => {
    const breakdowns = {
      prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 5, audio_tokens: 0 },
    };
    const whole = await live.chat.completions.create({ model: 'up-reasoning', messages });
    expect(whole.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, ...breakdowns });
    const chunks = await streamedChunks(live, 'up-reasoning');
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      ...breakdowns,
    });
    // An upstream that reports none: no breakdowns are made up.
    const plain = await live.chat.completions.create({ model: 'up-ok', messages });
    expect(plain.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('relays the reasoning_content some upstreams give, whole and streamed', async () => {
    const whole = await live.chat.completions.create({ model: 'up-reasoning', messages });
    const message = whole.choices[0]?.message as { content: string; reasoning_content?: string };
    expect(message.reasoning_content).toBe(FAKE_REASONING);
    expect(message.content).toBe(FAKE_TEXT);
    const stream = await live.chat.completions.create({ model: 'up-reasoning', messages, stream: true });
    let reasoning = '';
    for await (const c of stream) {
      reasoning +=
        (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    }
    expect(reasoning).toBe(FAKE_REASONING);
    // Upstreams that give none: no field made up.
    const plain = await live.chat.completions.create({ model: 'up-ok', messages });
    expect(plain.choices[0]?.message).not.toHaveProperty('reasoning_content');
  });

  it("counts Anthropic's cached prompt tokens in prompt_tokens and reports them as cached_tokens", async () => {
    // input_tokens 13 + 6 written to the cache + 100 read from it: OpenAI's prompt_tokens is the whole prompt.
    const expected = {
      prompt_tokens: 119,
      completion_tokens: 8,
      total_tokens: 127,
      prompt_tokens_details: { cached_tokens: 100 },
    };
    const whole = await live.chat.completions.create({ model: 'claude-cached', messages });
    expect(whole.usage).toEqual(expected);
    const chunks = await streamedChunks(live, 'claude-cached');
    expect(chunks.at(-1)?.usage).toEqual(expected);
    await eventually(() => spy.settled.length === 2);
    expect(spy.settled).toEqual([127, 127]);
  });
});

describe('Anthropic Messages API: content parts', () => {
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
    // The 1×1 PNG is counted by its size (85 + one tile of 170), the URL at detail low as 85, not as text.
    const text = [
      {
        role: 'user' as const,
        content: [{ type: 'text' as const, text: 'Compare these:Which is brighter?' }],
      },
    ];
    expect(spy.reserved[0]).toBe(countPromptTokens(text) + 255 + 85 + 2048);
  });
});

describe('what the prompt is counted as', () => {
  it('counts the function definitions into the prompt: the reservation and the context check see them', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [COOKBOOK_WEATHER_TOOL];
    await live.chat.completions.create({ model: 'up-ok', messages, tools, max_tokens: 10 });
    const counted = countPromptTokens(messages, tools as never);
    expect(counted).toBeGreaterThan(countPromptTokens(messages) + 30);
    expect(spy.reserved[0]).toBe(counted + 10);
  });
});

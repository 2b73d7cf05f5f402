/** n on Anthropic's Messages API, which answers one choice a request: n calls at once, their answers as one. */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../src/modules/tokenizer';
import { type AllowanceSpy, eventually } from '../helpers/chat-setup';
import { FAKE_TEXT, type FakeUpstream } from '../helpers/fake-upstreams';
import { messages, useProviderSuite } from '../helpers/provider-suite';

const suite = useProviderSuite();
let anthropic: FakeUpstream;
let live: OpenAI;
let spy: AllowanceSpy;
beforeAll(() => {
  ({ anthropic, live, spy } = suite);
});

describe('n on Anthropic: one call per choice', () => {
  it('answers n choices from n calls made at once, usage summed, the prompt reserved n times', async () => {
    const res = await live.chat.completions.create({ model: 'claude-ok', messages, n: 3 });
    expect(anthropic.requests).toHaveLength(3);
    for (const r of anthropic.requests) expect(r.body).not.toHaveProperty('n');
    expect(res.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, FAKE_TEXT, 'stop'],
      [1, FAKE_TEXT, 'stop'],
      [2, FAKE_TEXT, 'stop'],
    ]);
    // The fake bills 13 prompt and 8 completion tokens a call.
    expect(res.usage).toEqual({ prompt_tokens: 39, completion_tokens: 24, total_tokens: 63 });
    expect(spy.reserved[0]).toBe(3 * countPromptTokens(messages) + 3 * 2048);
    await eventually(() => spy.settled.length === 1);
    expect(spy.settled).toEqual([63]);
  });

  it('streams n choices as one stream: each choice its index, its finish, one usage chunk', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-ok',
      messages,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    const text = ['', ''];
    const finishes: (string | null)[][] = [[], []];
    const usages = [];
    for await (const c of stream) {
      for (const choice of c.choices) {
        text[choice.index] += choice.delta.content ?? '';
        if (choice.finish_reason) finishes[choice.index]?.push(choice.finish_reason);
      }
      if (c.usage) usages.push(c.usage);
    }
    expect(text).toEqual([FAKE_TEXT, FAKE_TEXT]);
    expect(finishes).toEqual([['stop'], ['stop']]);
    expect(usages).toEqual([{ prompt_tokens: 26, completion_tokens: 16, total_tokens: 42 }]);
    expect(anthropic.requests).toHaveLength(2);
  });

  it('a stream of n choices that stalls ends with one error event, and every call is let go', async () => {
    const stream = await live.chat.completions.create({
      model: 'claude-stall',
      messages,
      n: 2,
      stream: true,
    });
    const failure = await (async () => {
      for await (const _ of stream) {
        // drain until the error event
      }
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(String((failure as Error).message)).toContain('did not respond within');
    expect(anthropic.requests).toHaveLength(2);
    await eventually(() => anthropic.aborts.length >= 2);
  });

  it('reserves the prompt n times when only the fallback is Anthropic, and answers n choices from it', async () => {
    const res = await live.chat.completions.create({ model: 'up-fallback-claude', messages, n: 2 });
    expect(res.model).toBe('claude-ok');
    expect(res.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(spy.reserved[0]).toBe(2 * countPromptTokens(messages) + 2 * 2048);
    // Not when neither is: OpenAI answers n choices from one call, reading the prompt once.
    await live.chat.completions.create({ model: 'up-ok', messages, n: 2 });
    expect(spy.reserved[1]).toBe(countPromptTokens(messages) + 2 * 2048);
  });
});

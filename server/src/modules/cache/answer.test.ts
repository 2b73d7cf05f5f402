import { describe, expect, it } from 'vitest';
import { asChunks, asCompletion, type CachedAnswer, StreamAssembly } from './answer';

const chunk = (choices: unknown[], usage: unknown = undefined) =>
  JSON.stringify({
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices,
    ...(usage !== undefined && { usage }),
  });

describe('StreamAssembly', () => {
  it('puts interleaved choices, tool calls in pieces and log probabilities back together', () => {
    const a = new StreamAssembly();
    a.add(
      chunk([
        {
          index: 0,
          delta: { role: 'assistant', content: 'Hel' },
          logprobs: { content: [{ token: 'Hel', logprob: -1 }] },
          finish_reason: null,
        },
      ]),
    );
    a.add(
      chunk([
        {
          index: 1,
          delta: {
            role: 'assistant',
            content: null,
            tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'look', arguments: '' } }],
          },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    a.add(
      chunk([
        {
          index: 0,
          delta: { content: 'lo' },
          logprobs: { content: [{ token: 'lo', logprob: -2 }] },
          finish_reason: null,
        },
      ]),
    );
    a.add(
      chunk([
        {
          index: 1,
          delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    a.add(
      chunk([
        {
          index: 1,
          delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    expect(a.finished()).toBeUndefined();
    a.add(
      chunk([
        { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
        { index: 1, delta: {}, logprobs: null, finish_reason: 'tool_calls' },
      ]),
    );
    a.add(chunk([], { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }));
    expect(a.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(a.finished()).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello', refusal: null },
        logprobs: {
          content: [
            { token: 'Hel', logprob: -1 },
            { token: 'lo', logprob: -2 },
          ],
          refusal: [],
        },
        finish_reason: 'stop',
      },
      {
        index: 1,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"q":1}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
  });
});

describe('a cached answer replayed', () => {
  const answer: CachedAnswer = {
    v: 1,
    at: 0,
    model: 'm',
    provider: 'openai',
    fingerprint: 'fp_1',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hi', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    costMicros: 50,
  };

  it('as a stream that a StreamAssembly reads back to the same choices and usage', () => {
    const chunks = asChunks(answer, 123, true);
    const parsed = chunks.map((c) => JSON.parse(c) as Record<string, unknown>);
    expect(new Set(parsed.map((c) => c.id)).size).toBe(1);
    expect(parsed.every((c) => c.created === 123 && c.system_fingerprint === 'fp_1')).toBe(true);
    expect(parsed.map((c) => c.usage)).toEqual([null, null, answer.usage]);
    const back = new StreamAssembly();
    for (const c of chunks) back.add(c);
    expect(back.finished()).toEqual(answer.choices);
    expect(back.usage).toEqual(answer.usage);
    expect(asChunks(answer, 123, false).map((c) => 'usage' in JSON.parse(c))).toEqual([false, false]);
  });

  it('as a completion with a fresh id each time', () => {
    const a = asCompletion(answer, 5);
    expect(a).toMatchObject({
      object: 'chat.completion',
      created: 5,
      model: 'm',
      system_fingerprint: 'fp_1',
      usage: answer.usage,
    });
    expect(a.choices).toEqual(answer.choices);
    expect(asCompletion(answer, 5).id).not.toBe(a.id);
  });
});

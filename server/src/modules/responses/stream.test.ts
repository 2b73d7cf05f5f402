import type { ChunkChoice } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors';
import { responseShell } from './envelope';
import { type ResponseEventSink, ResponseStream } from './stream';

type Event = Record<string, unknown> & { type: string };

function recorder(): { sink: ResponseEventSink; events: Event[]; ended: () => boolean } {
  const events: Event[] = [];
  let ended = false;
  const sink: ResponseEventSink = {
    open() {},
    event(type, json) {
      const event = JSON.parse(json) as Event;
      expect(event.type).toBe(type);
      events.push(event);
    },
    ready: () => undefined,
    comment() {},
    failure: (err) => ({
      message: err instanceof Error ? err.message : 'failed',
      type: 'server_error',
      param: null,
      code: err instanceof ServiceError ? err.code : null,
    }),
    end() {
      ended = true;
    },
  };
  return { sink, events, ended: () => ended };
}

const shell = () => responseShell({ model: 'm', input: 'hi' }, 'resp_1', 1, 'm');

function chunk(delta: ChunkChoice['delta'], finish: ChunkChoice['finish_reason'] = null): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
}

const usage = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [],
  usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
});

describe('ResponseStream', () => {
  it('a message of text then a refusal, then two tool calls (one without an id): items in order, each closed', () => {
    const { sink, events, ended } = recorder();
    const stream = new ResponseStream(shell(), sink, () => 2_000);
    stream.open();
    stream.send(chunk({ role: 'assistant', content: 'Hel' }));
    stream.send(chunk({ content: 'lo' }));
    stream.send(chunk({ refusal: 'No.' }));
    stream.send(
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"a"' } }] }),
    );
    stream.send(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }));
    stream.send(
      chunk({ tool_calls: [{ index: 1, function: { name: 'g', arguments: '{}' } }] }, 'tool_calls'),
    );
    stream.send(usage);
    stream.done();
    expect(ended()).toBe(true);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const completed = events.at(-1)?.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      status: 'completed',
      completed_at: 2,
      usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 },
      output: [
        {
          type: 'message',
          status: 'completed',
          content: [
            { type: 'output_text', text: 'Hello', annotations: [], logprobs: [] },
            { type: 'refusal', refusal: 'No.' },
          ],
        },
        { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{"a":1}', status: 'completed' },
        { type: 'function_call', name: 'g', arguments: '{}', status: 'completed' },
      ],
    });
    const output = completed.output as { call_id: string }[];
    expect(output[2]?.call_id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  });

  it('stopped at the cap: response.incomplete, the open item incomplete', () => {
    const { sink, events } = recorder();
    const stream = new ResponseStream(shell(), sink, () => 0);
    stream.open();
    stream.send(chunk({ content: 'cut' }, 'length'));
    stream.send(usage);
    stream.done();
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ status: 'incomplete' }],
    });
    const itemDone = events.find((e) => e.type === 'response.output_item.done');
    expect(itemDone?.item).toMatchObject({ status: 'incomplete' });
  });

  it('a failure after the stream opened: an error event, response.failed, then the end (nothing after)', () => {
    const { sink, events, ended } = recorder();
    const stream = new ResponseStream(shell(), sink, () => 0);
    stream.open();
    stream.send(chunk({ content: 'part' }));
    stream.error(
      new ServiceError('timeout', 'The model did not respond in time.', { code: 'model_timeout' }),
    );
    stream.done();
    expect(ended()).toBe(true);
    expect(events.slice(-2)).toEqual([
      {
        type: 'error',
        code: 'model_timeout',
        message: 'The model did not respond in time.',
        param: null,
        sequence_number: 5,
      },
      expect.objectContaining({ type: 'response.failed', sequence_number: 6 }),
    ]);
    expect(events.at(-1)?.response).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'The model did not respond in time.' },
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'part' }] }],
    });
  });
});

import type { ServerResponse } from 'node:http';
import {
  FAKE_TEXT,
  type FakeUpstream,
  type Handler,
  json,
  type Options,
  sleep,
  startFake,
  streamWords,
} from './fake-server';

/**
 * A real HTTP server on loopback speaking Anthropic's Messages API (fake-upstreams.ts has the OpenAI one and the
 * list of behaviours, which the upstream model name picks).
 */

/** The fake Anthropic's usage; `cached` reports prompt tokens written to and read from its prompt cache. */
function anthropicUsage(behaviour: string, output: number): Record<string, unknown> {
  return behaviour === 'cached'
    ? {
        input_tokens: 13,
        cache_creation_input_tokens: 6,
        cache_read_input_tokens: 100,
        output_tokens: output,
      }
    : { input_tokens: 13, output_tokens: output };
}

/** Starts an Anthropic event stream; returns what writes one event. */
function anthropicEvents(res: ServerResponse): (type: string, data: Record<string, unknown>) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  return (type, data) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
}

/**
 * Anthropic answering with text and then a tool call, whole or as its stream events; when Tessera offered its
 * `json_response` tool (response_format), a call of that too, made next to the first.
 */
function anthropicToolAnswer(res: ServerResponse, body: Record<string, unknown>, stream: boolean): void {
  const usage = { input_tokens: 20, output_tokens: 9 };
  const withJson = ((body.tools as { name?: string }[] | undefined) ?? []).some(
    (t) => t.name === 'json_response',
  );
  if (!stream) {
    json(res, 200, {
      id: 'msg_tools',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
        ...(withJson
          ? [{ type: 'tool_use', id: 'toolu_json', name: 'json_response', input: FAKE_JSON }]
          : []),
      ],
      stop_reason: 'tool_use',
      usage,
    });
    return;
  }
  const event = anthropicEvents(res);
  event('message_start', { message: { id: 'msg_tools', usage: { input_tokens: 20, output_tokens: 1 } } });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me look.' } });
  event('content_block_stop', { index: 0 });
  event('content_block_start', {
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
  });
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":' } });
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"x"}' } });
  event('content_block_stop', { index: 1 });
  if (withJson) {
    event('content_block_start', {
      index: 2,
      content_block: { type: 'tool_use', id: 'toolu_json', name: 'json_response', input: {} },
    });
    for (const piece of FAKE_JSON_PIECES)
      event('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: piece } });
    event('content_block_stop', { index: 2 });
  }
  event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } });
  event('message_stop', {});
  res.end();
}

/** The input the fake Anthropic gives the `json_response` tool (Tessera's response_format translation). */
export const FAKE_JSON = { answer: 'Hello from the fake upstream.', confidence: 0.5 };
export const FAKE_JSON_PIECES = ['{"answer": "Hello from', ' the fake upstream.", ', '"confidence": 0.5}'];
/** The text the fake writes before calling the tool when it is not made to call it. */
export const FAKE_JSON_PREAMBLE = 'Here is the JSON:';

/** Anthropic calling the `json_response` tool, with a preamble first when the tool choice did not force it. */
function anthropicJsonAnswer(res: ServerResponse, body: Record<string, unknown>, stream: boolean): void {
  // Made to call a tool (a named one, or any), the model writes no text first.
  const choice = (body.tool_choice as { type?: string } | undefined)?.type;
  const forced = choice === 'tool' || choice === 'any';
  const usage = { input_tokens: 20, output_tokens: 12 };
  if (!stream) {
    json(res, 200, {
      id: 'msg_json',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [
        ...(forced ? [] : [{ type: 'text', text: FAKE_JSON_PREAMBLE }]),
        { type: 'tool_use', id: 'toolu_json', name: 'json_response', input: FAKE_JSON },
      ],
      stop_reason: 'tool_use',
      usage,
    });
    return;
  }
  const event = anthropicEvents(res);
  event('message_start', { message: { id: 'msg_json', usage: { input_tokens: 20, output_tokens: 1 } } });
  let index = 0;
  if (!forced) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index, delta: { type: 'text_delta', text: FAKE_JSON_PREAMBLE } });
    event('content_block_stop', { index });
    index += 1;
  }
  event('content_block_start', {
    index,
    content_block: { type: 'tool_use', id: 'toolu_json', name: 'json_response', input: {} },
  });
  for (const piece of FAKE_JSON_PIECES) {
    event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
  }
  event('content_block_stop', { index });
  event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } });
  event('message_stop', {});
  res.end();
}

const anthropicHandler: Handler = async ({ res, body, behaviour, stream, options }) => {
  const stopReason = body.max_tokens === 3 ? 'max_tokens' : 'end_turn';
  if (behaviour === 'tools') {
    anthropicToolAnswer(res, body, stream);
    return;
  }
  const tools = (body.tools as { name?: string }[] | undefined) ?? [];
  if (tools.some((t) => t.name === 'json_response')) {
    anthropicJsonAnswer(res, body, stream);
    return;
  }
  if (!stream) {
    if (behaviour === 'slow') await sleep(options.slowMs);
    json(res, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: FAKE_TEXT }],
      stop_reason: stopReason,
      usage: anthropicUsage(behaviour, 8),
    });
    return;
  }
  const event = anthropicEvents(res);
  event('message_start', { message: { id: 'msg_fake', usage: anthropicUsage(behaviour, 1) } });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('ping', {});
  const finished = await streamWords(res, behaviour, options, (word) =>
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } }),
  );
  if (!finished) return;
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: stopReason }, usage: { output_tokens: 8 } });
  event('message_stop', {});
  res.end();
};

export function startFakeAnthropic(options: Options = {}): Promise<FakeUpstream> {
  return startFake(anthropicHandler, options);
}

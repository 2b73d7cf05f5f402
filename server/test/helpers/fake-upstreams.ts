import type { ServerResponse } from 'node:http';
import {
  FAKE_TEXT,
  FAKE_WORDS,
  type FakeUpstream,
  type Handler,
  json,
  LINGER_MS,
  type Options,
  sleep,
  startFake,
  streamWords,
  TOOL_CALL_PIECES,
} from './fake-server';

export {
  FAKE_TEXT,
  FAKE_WORDS,
  type FakeUpstream,
  LINGER_MS,
  LONG_WORDS,
  TOOL_CALL_PIECES,
} from './fake-server';

/**
 * Real HTTP servers on loopback that speak OpenAI's and Anthropic's wire formats. The upstream model name picks
 * the behaviour, so one catalogue can point at every case:
 *   ok        answers at once ("Hello from the fake upstream.")
 *   slow      waits `slowMs` before answering (non-streamed) or before the first chunk (streamed)
 *   stall     streams two chunks, then says nothing (mid-stream timeout)
 *   drip      streams one word every `dripMs` (client abort)
 *   fail500   status 500 every time
 *   fail429   status 429 with retry-after: 1 every time
 *   failNNN   status NNN every time (408, 413, 401…)
 *   flaky     status 503 on the first call for each distinct prompt, then ok
 *   reset     destroys the connection without an answer
 *   garbage   status 200 with a body that is not JSON
 *   html      status 200 with an HTML page (a proxy's error page)
 *   tools     answers with a tool call (text first on Anthropic)
 *   linger    (OpenAI, streamed) ends the response `LINGER_MS` after its [DONE]
 *   reasoning (OpenAI) gives reasoning_content and reports usage with its breakdowns (cached and reasoning
 *             tokens)
 *   cached    (Anthropic) reports prompt tokens written to and read from its prompt cache
 *   logprobs  (OpenAI) answers with each token's log probability (`logprobsOf`), as for `logprobs: true`
 *   whole     (OpenAI) answers whole (JSON) even when asked to stream, as servers that ignore `stream: true`
 *   nousage, longnousage, toolsnousage
 *             (OpenAI, streamed) never report usage, as servers that ignore stream_options: the words,
 *             LONG_WORDS, or a tool call (TOOL_CALL_PIECES)
 */
/** Log probabilities in OpenAI's shape for the given tokens (-0.25 for the i-th, -0.5 for its alternative). */
export function logprobsOf(tokens: readonly string[]): unknown {
  return {
    content: tokens.map((token, i) => ({
      token,
      logprob: -0.25 * (i + 1),
      bytes: [...Buffer.from(token)],
      top_logprobs: [{ token: `${token}!`, logprob: -0.5, bytes: [...Buffer.from(`${token}!`)] }],
    })),
    refusal: null,
  };
}

/** What the `reasoning` behaviour gives as `reasoning_content` (as DeepSeek and vLLM's reasoning parsers do). */
export const FAKE_REASONING = 'The user greets; greet back.';

/** The fake OpenAI's usage; `reasoning` reports the breakdowns a reasoning model's usage carries. */
function usageOf(behaviour: string): Record<string, unknown> {
  return behaviour === 'reasoning'
    ? {
        prompt_tokens: 11,
        completion_tokens: 7,
        total_tokens: 18,
        prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 5, audio_tokens: 0 },
      }
    : { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
}

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

const openAiHandler: Handler = async ({ res, body, behaviour, stream, options }) => {
  // Written out in each answer rather than spread into it: on Node.js 20 properties added after a leading
  // spread make new hidden classes on every call, which would load this fake (and so the benchmarks) needlessly.
  const id = 'chatcmpl-upstream';
  const created = 1_700_000_000;
  const model = body.model;
  if (!stream || behaviour === 'whole') {
    if (behaviour === 'slow') await sleep(options.slowMs);
    if (behaviour === 'stall' || behaviour === 'drip') await sleep(60_000);
    const message =
      behaviour === 'tools'
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
            ],
          }
        : behaviour === 'reasoning'
          ? { role: 'assistant', content: FAKE_TEXT, refusal: null, reasoning_content: FAKE_REASONING }
          : { role: 'assistant', content: FAKE_TEXT, refusal: null };
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message,
          logprobs: behaviour === 'logprobs' ? logprobsOf(FAKE_WORDS) : null,
          finish_reason: behaviour === 'tools' ? 'tool_calls' : 'stop',
        },
      ],
      usage: usageOf(behaviour),
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (choices: unknown[], usage: unknown = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, usage })}\n\n`,
    );
  if (behaviour === 'toolsnousage') {
    const [name, ...args] = TOOL_CALL_PIECES;
    const call = { index: 0, id: 'call_1', type: 'function', function: { name, arguments: '' } };
    chunk([
      { index: 0, delta: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: null },
    ]);
    for (const piece of args)
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
          finish_reason: null,
        },
      ]);
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    res.end('data: [DONE]\n\n');
    return;
  }
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (behaviour === 'reasoning') {
    chunk([{ index: 0, delta: { reasoning_content: FAKE_REASONING }, finish_reason: null }]);
  }
  const finished = await streamWords(res, behaviour, options, (word) =>
    chunk([
      {
        index: 0,
        delta: { content: word },
        logprobs: behaviour === 'logprobs' ? logprobsOf([word]) : null,
        finish_reason: null,
      },
    ]),
  );
  if (!finished) return;
  chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  if (!behaviour.endsWith('nousage')) chunk([], usageOf(behaviour));
  if (behaviour === 'linger') {
    res.write('data: [DONE]\n\n');
    await sleep(LINGER_MS);
    res.end();
    return;
  }
  res.end('data: [DONE]\n\n');
};

/** Starts an Anthropic event stream; returns what writes one event. */
function anthropicEvents(res: ServerResponse): (type: string, data: Record<string, unknown>) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  return (type, data) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
}

/** Anthropic answering with text and then a tool call, whole or as its stream events. */
function anthropicToolAnswer(res: ServerResponse, body: Record<string, unknown>, stream: boolean): void {
  const usage = { input_tokens: 20, output_tokens: 9 };
  if (!stream) {
    json(res, 200, {
      id: 'msg_tools',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
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
  const forced = (body.tool_choice as { type?: string } | undefined)?.type === 'tool';
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

export function startFakeOpenAi(options: Options = {}): Promise<FakeUpstream> {
  return startFake(openAiHandler, options);
}

export function startFakeAnthropic(options: Options = {}): Promise<FakeUpstream> {
  return startFake(anthropicHandler, options);
}

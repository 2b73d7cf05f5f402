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

export { FAKE_JSON, FAKE_JSON_PIECES, FAKE_JSON_PREAMBLE, startFakeAnthropic } from './fake-anthropic';
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
 *   flood     (OpenAI, streamed) FLOOD.chunks chunks of ~1 KB as fast as the connection takes them, waiting
 *             for it to drain when it is full, as a server does; `FLOOD.written` counts what it wrote
 *   fingerprint (OpenAI) says `system_fingerprint: FAKE_FINGERPRINT` on its answer and every chunk, as OpenAI does
 *   wholefingerprint (OpenAI) `whole` with `fingerprint`'s system_fingerprint
 *   nousage, longnousage, toolsnousage
 *             (OpenAI, streamed) never report usage, as servers that ignore stream_options: the words,
 *             LONG_WORDS, or a tool call (TOOL_CALL_PIECES)
 * On `/embeddings` (OpenAI), `ok`, `slow`, `flaky` and the failures as above, and:
 *   ok        one vector an input (fakeEmbedding), `dimensions` long (else FAKE_EMBEDDING_DIMENSIONS), in the
 *             `encoding_format` asked for, in reverse order with their indices; usage FAKE_EMBEDDING_TOKENS
 *   floats    floats whatever `encoding_format` says, without usage (as some local servers answer)
 *   wrongdims vectors one component longer than asked
 *   fewer     one vector fewer than the inputs
 */
/** What the `fingerprint` behaviour says as its `system_fingerprint`. */
export const FAKE_FINGERPRINT = 'fp_fake0123ab';

/** The `flood` behaviour: how many chunks it streams, and how many its last call has written so far. */
export const FLOOD = { chunks: 20_000, written: 0, piece: ' flood'.repeat(170) };

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

/** The length of the fake's vectors when the request names no `dimensions`. */
export const FAKE_EMBEDDING_DIMENSIONS = 16;
/** The prompt tokens the fake's `ok` embeddings report (not Tessera's count: the upstream's wins). */
export const FAKE_EMBEDDING_TOKENS = 23;

/** The fake's vector for the input at `index`: distinct per index, so that order is checkable. */
export function fakeEmbedding(index: number, length: number): number[] {
  return Array.from({ length }, (_, j) => (j === index % length ? 0.5 : 0.25) * (index + 1));
}

function embeddingsAnswer(res: ServerResponse, body: Record<string, unknown>, behaviour: string): void {
  const inputs =
    typeof body.input === 'string' || typeof (body.input as unknown[])[0] === 'number'
      ? 1
      : (body.input as unknown[]).length;
  const length =
    (typeof body.dimensions === 'number' ? body.dimensions : FAKE_EMBEDDING_DIMENSIONS) +
    (behaviour === 'wrongdims' ? 1 : 0);
  const base64 = body.encoding_format === 'base64' && behaviour !== 'floats';
  const data = Array.from({ length: behaviour === 'fewer' ? inputs - 1 : inputs }, (_, index) => {
    const vector = fakeEmbedding(index, length);
    return {
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
    };
  }).reverse();
  const answer: Record<string, unknown> = { object: 'list', data, model: body.model };
  if (behaviour !== 'floats')
    answer.usage = { prompt_tokens: FAKE_EMBEDDING_TOKENS, total_tokens: FAKE_EMBEDDING_TOKENS };
  json(res, 200, answer);
}

const openAiHandler: Handler = async ({ req, res, body, behaviour, stream, options }) => {
  if (req.url?.endsWith('/embeddings')) {
    if (behaviour === 'slow') await sleep(options.slowMs);
    embeddingsAnswer(res, body, behaviour);
    return;
  }
  // Written out in each answer rather than spread into it: on Node.js 20 properties added after a leading
  // spread make new hidden classes on every call, which would load this fake (and so the benchmarks) needlessly.
  const id = 'chatcmpl-upstream';
  const created = 1_700_000_000;
  const model = body.model;
  if (!stream || behaviour === 'whole' || behaviour === 'wholefingerprint') {
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
    const answer: Record<string, unknown> = {
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
    };
    if (behaviour.endsWith('fingerprint')) answer.system_fingerprint = FAKE_FINGERPRINT;
    json(res, 200, answer);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const fingerprint = behaviour === 'fingerprint' ? FAKE_FINGERPRINT : undefined;
  const chunk = (choices: unknown[], usage: unknown = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: fingerprint, choices, usage })}\n\n`,
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
  if (behaviour === 'flood') {
    FLOOD.written = 0;
    for (let i = 0; i < FLOOD.chunks; i++) {
      if (res.destroyed) return;
      const room = chunk([{ index: 0, delta: { content: FLOOD.piece }, finish_reason: null }]);
      FLOOD.written = i + 1;
      if (!room)
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go).off('close', go);
            resolve();
          };
          res.on('drain', go).on('close', go);
        });
    }
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
    chunk([], {
      prompt_tokens: 11,
      completion_tokens: FLOOD.chunks * 170,
      total_tokens: 11 + FLOOD.chunks * 170,
    });
    res.end('data: [DONE]\n\n');
    return;
  }
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

export function startFakeOpenAi(options: Options = {}): Promise<FakeUpstream> {
  return startFake(openAiHandler, options);
}

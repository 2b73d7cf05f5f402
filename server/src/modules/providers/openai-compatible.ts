import type { ChoiceLogprobs, FinishReason, Usage } from '@tessera/shared';
import type { Dispatcher } from 'undici';
import { ServiceError } from '../../errors';
import { inFormat, lengthOf } from './embedding-format';
import { upstreamStreamError } from './errors';
import { UpstreamClient, type UpstreamTarget } from './http';
import { ResponsesRelay } from './responses-relay';
import { parseEventJson } from './sse-json';
import type {
  ChatProvider,
  EmbeddingCall,
  EmbeddingProvider,
  ProviderCall,
  ProviderChunk,
  ProviderCompletion,
  ProviderEmbeddings,
} from './types';

interface UpstreamCompletion {
  choices?: {
    index?: number;
    message?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: unknown[];
      reasoning_content?: string | null;
    };
    finish_reason?: string | null;
    logprobs?: ChoiceLogprobs | null;
  }[];
  usage?: Partial<Usage> | null;
  system_fingerprint?: string | null;
}

const FINISH: readonly string[] = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];

function finishOf(reason: string | null | undefined): FinishReason | null {
  if (!reason) return null;
  return (FINISH.includes(reason) ? reason : 'stop') as FinishReason;
}

/**
 * The client's request as the upstream gets it: the upstream's model name; the cap in force always, under the
 * field this upstream reads (without it the model may write past what the allowance reserved for the call); and
 * the client's other fields, ours and any other of OpenAI's (`logprobs`, `parallel_tool_calls`, `logit_bias`,
 * `reasoning_effort`…), except those that act on the operator's upstream account rather than on the call:
 * `store` and `metadata` (completions kept in the operator's account) and `service_tier` (its price).
 * The fixed fields come first, not after a leading spread: properties added after one make a new hidden class per
 * call on Node.js 20.
 */
function upstreamBody(call: ProviderCall, stream: boolean): Record<string, unknown> {
  const {
    stream: _s,
    stream_options: _o,
    max_tokens: _m,
    max_completion_tokens: _c,
    store: _st,
    metadata: _md,
    service_tier: _t,
    ...rest
  } = call.request;
  const cap = call.maxTokens;
  const model = call.upstreamModel;
  if (call.maxTokensField === 'max_completion_tokens') {
    return stream
      ? { stream: true, stream_options: { include_usage: true }, max_completion_tokens: cap, ...rest, model }
      : { max_completion_tokens: cap, ...rest, model };
  }
  return stream
    ? { stream: true, stream_options: { include_usage: true }, max_tokens: cap, ...rest, model }
    : { max_tokens: cap, ...rest, model };
}

/**
 * The upstream's usage, its total made ours (the sum) and its breakdowns (`cached_tokens`, `reasoning_tokens`…)
 * kept. Without one, the prompt as Tessera counted it and no completion tokens.
 */
function usageOf(usage: Partial<Usage> | null | undefined, promptTokens: number): Usage {
  const prompt = usage?.prompt_tokens ?? promptTokens;
  const completion = usage?.completion_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(usage?.prompt_tokens_details && { prompt_tokens_details: usage.prompt_tokens_details }),
    ...(usage?.completion_tokens_details && { completion_tokens_details: usage.completion_tokens_details }),
  };
}

interface UpstreamEmbeddings {
  data?: { index?: number; embedding?: unknown }[];
  usage?: { prompt_tokens?: number; total_tokens?: number } | null;
}

/** Any server speaking OpenAI's chat API: OpenAI, vLLM, Ollama, llama.cpp, LM Studio, Groq, Together… */
export class OpenAiCompatibleProvider implements ChatProvider, EmbeddingProvider {
  private readonly client: UpstreamClient;
  /**
   * The upstream's own `POST /responses`, on the same connections and key: used only for the models (or
   * deployments) the catalogue says speak it (`responses_api: true`).
   */
  readonly responses: ResponsesRelay;

  constructor(readonly target: UpstreamTarget) {
    const auth: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
    this.client = new UpstreamClient(target, auth);
    this.responses = new ResponsesRelay(target.name, this.client);
  }

  get name(): string {
    return this.target.name;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const res = await this.client.post('/chat/completions', upstreamBody(call, false), call.signal);
    return this.completionOf(await this.client.json<UpstreamCompletion>(res), call);
  }

  /**
   * The client's request with the upstream's model name (its other fields, `user` and any the upstream knows,
   * as they came). The answer must hold one vector per input, each of the length asked for: vectors of another
   * length mean the catalogue's `dimensions` is wrong, which no retry fixes.
   */
  async embed(call: EmbeddingCall): Promise<ProviderEmbeddings> {
    const body = { ...call.request, model: call.upstreamModel };
    const res = await this.client.post('/embeddings', body, call.signal);
    const answer = await this.client.json<UpstreamEmbeddings>(res);
    const data = Array.isArray(answer.data) ? answer.data : [];
    if (data.length !== call.inputs.length) {
      throw upstreamStreamError(
        this.name,
        `the answer held ${data.length} embeddings for ${call.inputs.length} inputs`,
      );
    }
    const embeddings: (number[] | string)[] = new Array(data.length);
    for (const [i, item] of data.entries()) {
      const index = item.index ?? i;
      const vector = item.embedding;
      const valid =
        typeof vector === 'string' || (Array.isArray(vector) && vector.every((v) => typeof v === 'number'));
      if (!valid || index < 0 || index >= data.length || embeddings[index] !== undefined) {
        throw upstreamStreamError(this.name, `embedding ${i} is not a vector at an index of its own`);
      }
      const length = lengthOf(vector as number[] | string);
      if (length !== call.dimensions) {
        throw new ServiceError(
          'upstream',
          `The upstream provider '${this.name}' answered vectors of ${length} dimensions where ${call.dimensions} were expected: the model catalogue's dimensions for '${call.upstreamModel}' do not match the upstream model.`,
          { code: 'upstream_error', retryable: false },
        );
      }
      embeddings[index] = inFormat(vector as number[] | string, call.encodingFormat);
    }
    const prompt = answer.usage?.prompt_tokens ?? call.promptTokens;
    return {
      embeddings,
      usage: { prompt_tokens: prompt, total_tokens: answer.usage?.total_tokens ?? prompt },
    };
  }

  /** An upstream's whole answer in our terms; one without choices (an error body sent with a 200) is a failure. */
  private completionOf(body: UpstreamCompletion, call: ProviderCall): ProviderCompletion {
    if (!Array.isArray(body.choices) || body.choices.length === 0) {
      throw upstreamStreamError(this.name, 'the answer held no choices');
    }
    const choices = body.choices.map((c, i) => ({
      index: c.index ?? i,
      message: {
        role: 'assistant' as const,
        content: c.message?.content ?? null,
        refusal: c.message?.refusal ?? null,
        ...(c.message?.tool_calls && { tool_calls: c.message.tool_calls as never }),
        ...(typeof c.message?.reasoning_content === 'string' && {
          reasoning_content: c.message.reasoning_content,
        }),
      },
      finish_reason: finishOf(c.finish_reason) ?? 'stop',
      logprobs: c.logprobs ?? null,
    }));
    const completion: ProviderCompletion = { choices, usage: usageOf(body.usage, call.promptTokens) };
    // Relayed unchanged, null included: it tells clients which upstream configuration answered.
    if (body.system_fingerprint !== undefined) completion.system_fingerprint = body.system_fingerprint;
    return completion;
  }

  /**
   * Resolves once the upstream has answered 2xx with something that can become a stream, so that anything else
   * is still a failure before the first byte (retried, the fallback tried, an HTTP error to the client): a
   * server that ignores `stream: true` and answers whole (JSON) is streamed from that answer; an HTML page (a
   * proxy's) is a failure; anything else is read as Server-Sent Events.
   */
  async stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    const res = await this.client.post('/chat/completions', upstreamBody(call, true), call.signal);
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (type.includes('application/json')) {
      return this.whole(this.completionOf(await this.client.json<UpstreamCompletion>(res), call));
    }
    if (type.includes('text/html')) {
      await res.body.dump().catch(() => {});
      throw upstreamStreamError(this.name, `the answer was an HTML page, not an event stream`);
    }
    return this.relay(res, call);
  }

  /** A whole answer as a stream: each choice's message in one delta, then the finish reasons and the usage. */
  private async *whole(completion: ProviderCompletion): AsyncGenerator<ProviderChunk> {
    const fingerprint = completion.system_fingerprint;
    yield {
      system_fingerprint: fingerprint,
      choices: completion.choices.map((c) => ({
        index: c.index,
        delta: {
          role: 'assistant' as const,
          content: c.message.content,
          ...(c.message.refusal !== null && { refusal: c.message.refusal }),
          ...(c.message.tool_calls && {
            tool_calls: c.message.tool_calls.map((t, i) => ({ index: i, ...t })),
          }),
          ...(c.message.reasoning_content !== undefined && {
            reasoning_content: c.message.reasoning_content,
          }),
        },
        finish_reason: null,
        logprobs: c.logprobs ?? null,
      })),
      usage: null,
    };
    yield {
      system_fingerprint: fingerprint,
      choices: completion.choices.map((c) => ({ index: c.index, delta: {}, finish_reason: c.finish_reason })),
      usage: completion.usage,
    };
  }

  private async *relay(res: Dispatcher.ResponseData, call: ProviderCall): AsyncGenerator<ProviderChunk> {
    let finished = false;
    for await (const event of this.client.events(res, call.signal)) {
      if (event.data === '[DONE]') return;
      const chunk = parseEventJson<ProviderChunk & { error?: { message?: string } }>(event, (m) =>
        upstreamStreamError(this.name, m),
      );
      if (chunk.error) throw upstreamStreamError(this.name, chunk.error.message ?? 'unknown error');
      // The parsed choices are this call's own: normalised in place rather than copied (a stream's events are
      // most of what a streamed call allocates). ChunkRelay picks the fields that go to the client.
      const choices = chunk.choices ?? [];
      for (const c of choices) {
        c.delta ??= {};
        c.finish_reason = finishOf(c.finish_reason);
        c.logprobs ??= null;
        if (c.finish_reason) finished = true;
      }
      yield { choices, usage: chunk.usage ?? null, system_fingerprint: chunk.system_fingerprint };
    }
    // A body that ends with neither [DONE] nor a finish reason (cut short, or not SSE at all) is no answer.
    if (!finished) throw upstreamStreamError(this.name, 'the stream ended before the answer was complete');
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

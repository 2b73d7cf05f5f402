import type { ChoiceLogprobs, FinishReason } from '@tessera/shared';
import type { Dispatcher } from 'undici';
import { upstreamStreamError } from './errors';
import { UpstreamClient, type UpstreamTarget } from './http';
import { parseEventJson } from './sse-parser';
import type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from './types';

interface UpstreamCompletion {
  choices?: {
    index?: number;
    message?: { content?: string | null; refusal?: string | null; tool_calls?: unknown[] };
    finish_reason?: string | null;
    logprobs?: ChoiceLogprobs | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

const FINISH: readonly string[] = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];

function finishOf(reason: string | null | undefined): FinishReason | null {
  if (reason === null || reason === undefined) return null;
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

/** Any server speaking OpenAI's chat API: OpenAI, vLLM, Ollama, llama.cpp, LM Studio, Groq, Together… */
export class OpenAiCompatibleProvider implements ChatProvider {
  private readonly client: UpstreamClient;

  constructor(readonly target: UpstreamTarget) {
    const auth: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
    this.client = new UpstreamClient(target, auth);
  }

  get name(): string {
    return this.target.name;
  }

  async complete(call: ProviderCall): Promise<ProviderCompletion> {
    const res = await this.client.post('/chat/completions', upstreamBody(call, false), call.signal);
    const body = await this.client.json<UpstreamCompletion>(res);
    const choices = (body.choices ?? []).map((c, i) => ({
      index: c.index ?? i,
      message: {
        role: 'assistant' as const,
        content: c.message?.content ?? null,
        refusal: c.message?.refusal ?? null,
        ...(c.message?.tool_calls && { tool_calls: c.message.tool_calls as never }),
      },
      finish_reason: finishOf(c.finish_reason) ?? 'stop',
      logprobs: c.logprobs ?? null,
    }));
    const prompt = body.usage?.prompt_tokens ?? call.promptTokens;
    const completion = body.usage?.completion_tokens ?? 0;
    return {
      choices,
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }

  async stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    const res = await this.client.post('/chat/completions', upstreamBody(call, true), call.signal);
    return this.relay(res, call);
  }

  private async *relay(res: Dispatcher.ResponseData, call: ProviderCall): AsyncGenerator<ProviderChunk> {
    let finished = false;
    for await (const event of this.client.events(res, call.signal)) {
      if (event.data === '[DONE]') return;
      const chunk = parseEventJson<ProviderChunk & { error?: { message?: string } }>(event, (m) =>
        upstreamStreamError(this.name, m),
      );
      if (chunk.error) throw upstreamStreamError(this.name, chunk.error.message ?? 'unknown error');
      if (chunk.choices?.some((c) => c.finish_reason)) finished = true;
      yield {
        choices: (chunk.choices ?? []).map((c) => ({
          index: c.index,
          delta: c.delta ?? {},
          finish_reason: finishOf(c.finish_reason),
          logprobs: c.logprobs ?? null,
        })),
        usage: chunk.usage ?? null,
      };
    }
    // A body that ends with neither [DONE] nor a finish reason (cut short, or not SSE at all) is no answer.
    if (!finished) throw upstreamStreamError(this.name, 'the stream ended before the answer was complete');
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

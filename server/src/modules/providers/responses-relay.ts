import type { Usage } from '@tessera/shared';
import type { Dispatcher } from 'undici';
import { upstreamStreamError } from './errors';
import type { UpstreamClient } from './http';
import { parseEventJson } from './sse-json';
import type { RelayedEvent, RelayedResponse, ResponsesCall, ResponsesProvider } from './types';

/** The events that end a Responses stream: after one, the answer is whole (or failed) and its usage known. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

export function isTerminalResponseEvent(type: string): boolean {
  return TERMINAL.has(type);
}

interface UpstreamResponseUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown } | null;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * A `response` object's usage in chat's terms, what the allowance, budgets and metering settle to: input →
 * prompt, output → completion, with the cached and reasoning breakdowns. Undefined when the response has none
 * (or a malformed one): the meter then counts what was streamed.
 */
export function responsesUsageOf(response: unknown): Usage | undefined {
  const usage = (response as { usage?: UpstreamResponseUsage | null } | null)?.usage;
  if (!usage) return undefined;
  const prompt = count(usage.input_tokens);
  const completion = count(usage.output_tokens);
  if (prompt === undefined || completion === undefined) return undefined;
  const cached = count(usage.input_tokens_details?.cached_tokens);
  const reasoning = count(usage.output_tokens_details?.reasoning_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached !== undefined && { prompt_tokens_details: { cached_tokens: cached } }),
    ...(reasoning !== undefined && { completion_tokens_details: { reasoning_tokens: reasoning } }),
  };
}

/**
 * The client's request as the upstream gets it: the upstream's model name, the cap in force as
 * `max_output_tokens` (the allowance and budgets reserved for it), and `store: false`: the upstream keeps nothing
 * in the operator's account, which every tenant shares (so `previous_response_id` could never be honoured safely;
 * modules/responses refuses it before).
 */
function responsesBody(call: ResponsesCall, stream: boolean): Record<string, unknown> {
  const { model: _m, stream: _s, store: _st, max_output_tokens: _c, ...rest } = call.body;
  return { ...rest, model: call.upstreamModel, max_output_tokens: call.maxTokens, store: false, stream };
}

/**
 * `POST /responses` relayed to an OpenAI-compatible upstream that has it (OpenAI, Azure OpenAI, vLLM's and
 * others' Responses endpoints), on the provider's own connection pool and key.
 */
export class ResponsesRelay implements ResponsesProvider {
  constructor(
    readonly name: string,
    private readonly client: UpstreamClient,
  ) {}

  async respond(call: ResponsesCall): Promise<RelayedResponse> {
    const res = await this.client.post('/responses', responsesBody(call, false), call.signal);
    const body = await this.client.json<Record<string, unknown> | null>(res);
    if (typeof body !== 'object' || body === null || body.object !== 'response') {
      throw upstreamStreamError(this.name, 'the answer was not a response object');
    }
    return { body, usage: responsesUsageOf(body) };
  }

  /**
   * Resolves once the upstream answered 2xx with an event stream, so that anything else is still a failure
   * before the first byte (the next deployment tried, or an HTTP error to the client).
   */
  async respondStream(call: ResponsesCall): Promise<AsyncIterable<RelayedEvent>> {
    const res = await this.client.post('/responses', responsesBody(call, true), call.signal);
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (!type.includes('text/event-stream')) {
      await res.body.dump().catch(() => {});
      throw upstreamStreamError(
        this.name,
        `the answer to a stream was ${type || 'untyped'}, not an event stream`,
      );
    }
    return this.events(res, call);
  }

  private async *events(res: Dispatcher.ResponseData, call: ResponsesCall): AsyncGenerator<RelayedEvent> {
    for await (const event of this.client.events(res, call.signal)) {
      if (event.data === '[DONE]') break;
      const data = parseEventJson<Record<string, unknown> | null>(event, (m) =>
        upstreamStreamError(this.name, m),
      );
      if (typeof data !== 'object' || data === null)
        throw upstreamStreamError(this.name, 'an event was not an object');
      const type = typeof data.type === 'string' ? data.type : (event.event ?? '');
      if (!type) throw upstreamStreamError(this.name, 'an event had no type');
      const terminal = TERMINAL.has(type);
      yield {
        type,
        data,
        json: event.data,
        usage: terminal && type !== 'error' ? responsesUsageOf(data.response) : undefined,
      };
      // The answer is whole: what follows (if anything) is not read.
      if (terminal) return;
    }
    throw upstreamStreamError(this.name, 'the stream ended before the response was complete');
  }
}

import type { Usage } from '@tessera/shared';
import type { Dispatcher } from 'undici';
import { RESPONSE_TOOL, responseToolOf } from './anthropic-json';
import { toolCallsOf } from './anthropic-tools';
import { anthropicBody, finishOfStopReason } from './anthropic-translate';
import { upstreamStreamError } from './errors';
import { FanOut } from './fan-out';
import { UpstreamClient, type UpstreamTarget } from './http';
import { parseEventJson } from './sse-json';
import type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from './types';

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface MessagesResponse {
  content?: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

interface StreamEvent {
  type: string;
  index?: number;
  content_block?: { type: string; id?: string; name?: string };
  message?: { usage?: AnthropicUsage };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: { output_tokens?: number };
  error?: { message?: string };
}

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic's `input_tokens` leaves out the prompt tokens written to or read from its prompt cache; OpenAI's
 * `prompt_tokens` is the whole prompt, with the cached part in `prompt_tokens_details.cached_tokens`.
 */
function promptUsage(usage: AnthropicUsage | undefined): { prompt: number; cached: number } | undefined {
  if (usage?.input_tokens === undefined) return undefined;
  const cached = usage.cache_read_input_tokens ?? 0;
  return { prompt: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + cached, cached };
}

function usageOf(prompt: { prompt: number; cached: number }, completion: number): Usage {
  return {
    prompt_tokens: prompt.prompt,
    completion_tokens: completion,
    total_tokens: prompt.prompt + completion,
    ...(prompt.cached > 0 && { prompt_tokens_details: { cached_tokens: prompt.cached } }),
  };
}

/** Anthropic's Messages API, translated to and from OpenAI's chat format. */
export class AnthropicProvider implements ChatProvider {
  private readonly client: UpstreamClient;

  constructor(readonly target: UpstreamTarget) {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (target.apiKey) headers['x-api-key'] = target.apiKey;
    this.client = new UpstreamClient(target, headers);
  }

  get name(): string {
    return this.target.name;
  }

  /** The Messages API answers one choice a request: `n` > 1 is `n` requests at once (fan-out.ts). */
  complete(call: ProviderCall): Promise<ProviderCompletion> {
    if ((call.request.n ?? 1) === 1) return this.completeOne(call);
    return new FanOut(call).complete((one) => this.completeOne(one));
  }

  stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    if ((call.request.n ?? 1) === 1) return this.streamOne(call);
    return new FanOut(call).stream((one) => this.streamOne(one));
  }

  private async completeOne(call: ProviderCall): Promise<ProviderCompletion> {
    const res = await this.client.post('/v1/messages', anthropicBody(call, false), call.signal);
    const body = await this.client.json<MessagesResponse>(res);
    const blocks = body.content ?? [];
    const prompt = promptUsage(body.usage) ?? { prompt: call.promptTokens, cached: 0 };
    const completion = body.usage?.output_tokens ?? 0;
    // A JSON answer (response_format) comes as the response tool's input: that is the content, finish stop.
    // Text before it is dropped (the content must be the JSON alone); calls of the client's own tools made next
    // to it are kept, and then the finish is tool_calls.
    const json = responseToolOf(call.request)
      ? blocks.find((b) => b.type === 'tool_use' && b.name === RESPONSE_TOOL)
      : undefined;
    if (json) {
      const toolCalls = toolCallsOf(blocks.filter((b) => b !== json));
      return {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: JSON.stringify(json.input ?? {}),
              refusal: null,
              ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
            },
            finish_reason:
              toolCalls.length > 0 ? 'tool_calls' : body.stop_reason === 'max_tokens' ? 'length' : 'stop',
          },
        ],
        usage: usageOf(prompt, completion),
      };
    }
    const text = blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
    const toolCalls = toolCallsOf(blocks);
    return {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text === '' && toolCalls.length > 0 ? null : text,
            refusal: null,
            ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
          },
          finish_reason: finishOfStopReason(body.stop_reason),
        },
      ],
      usage: usageOf(prompt, completion),
    };
  }

  private async streamOne(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>> {
    const res = await this.client.post('/v1/messages', anthropicBody(call, true), call.signal);
    return this.translate(res, call);
  }

  private async *translate(res: Dispatcher.ResponseData, call: ProviderCall): AsyncGenerator<ProviderChunk> {
    let prompt = { prompt: call.promptTokens, cached: 0 };
    let completion = 0;
    // Anthropic numbers content blocks; OpenAI numbers tool calls.
    const toolIndex = new Map<number, number>();
    // A JSON answer (response_format) streams as the response tool's input, relayed as content. Text the model
    // writes is held to the end, and dropped if the JSON came (the content must be the JSON alone).
    const jsonMode = responseToolOf(call.request) !== undefined;
    let jsonBlock: number | undefined;
    let held = '';
    for await (const sse of this.client.events(res, call.signal)) {
      const event = parseEventJson<StreamEvent>(sse, (m) => upstreamStreamError(this.name, m));
      switch (event.type) {
        case 'message_start':
          prompt = promptUsage(event.message?.usage) ?? prompt;
          yield { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
          break;
        case 'content_block_start':
          if (
            jsonMode &&
            event.content_block?.type === 'tool_use' &&
            event.content_block.name === RESPONSE_TOOL
          ) {
            jsonBlock = event.index ?? 0;
            held = '';
          } else if (event.content_block?.type === 'tool_use') {
            // Text held (JSON asked for) stays held: the JSON may still follow this call of the client's tool.
            const index = toolIndex.size;
            toolIndex.set(event.index ?? 0, index);
            const { id, name: fn } = event.content_block;
            const call = { index, id, type: 'function', function: { name: fn, arguments: '' } };
            yield { choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] };
          }
          break;
        case 'content_block_delta':
          if (event.delta?.type === 'text_delta' && event.delta.text) {
            if (!jsonMode) {
              yield { choices: [{ index: 0, delta: { content: event.delta.text }, finish_reason: null }] };
            } else if (jsonBlock === undefined) held += event.delta.text;
          } else if (jsonBlock !== undefined && event.index === jsonBlock && event.delta?.partial_json) {
            yield {
              choices: [{ index: 0, delta: { content: event.delta.partial_json }, finish_reason: null }],
            };
          } else if (event.delta?.type === 'input_json_delta' && event.delta.partial_json) {
            const call = {
              index: toolIndex.get(event.index ?? 0) ?? 0,
              function: { arguments: event.delta.partial_json },
            };
            yield { choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] };
          }
          break;
        case 'message_delta':
          completion = event.usage?.output_tokens ?? completion;
          if (held) yield { choices: [{ index: 0, delta: { content: held }, finish_reason: null }] };
          held = '';
          if (event.delta?.stop_reason !== undefined) {
            const reason = event.delta.stop_reason;
            const finish =
              jsonBlock !== undefined && toolIndex.size === 0 && reason === 'tool_use'
                ? 'stop'
                : finishOfStopReason(reason);
            yield { choices: [{ index: 0, delta: {}, finish_reason: finish }] };
          }
          break;
        case 'message_stop':
          yield { choices: [], usage: usageOf(prompt, completion) };
          return;
        case 'error':
          throw upstreamStreamError(this.name, event.error?.message ?? 'unknown error');
        default:
          // ping and content_block_stop carry nothing OpenAI's chunks need.
          break;
      }
    }
    // Without message_stop the answer was cut short (or the body was not SSE at all).
    throw upstreamStreamError(this.name, 'the stream ended before the answer was complete');
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

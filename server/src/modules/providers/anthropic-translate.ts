import type { FinishReason } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { contentText } from '../tokenizer';
import { responseToolOf, withResponseTool } from './anthropic-json';
import { type AnthropicMessage, blocksOf, toolFields } from './anthropic-tools';
import type { ProviderCall } from './types';

/** OpenAI's request as a Messages API request: system and developer messages become `system`. */
export function anthropicBody(call: ProviderCall, stream: boolean): Record<string, unknown> {
  const { request } = call;
  let system = request.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n\n');
  const messages: AnthropicMessage[] = [];
  for (const [i, m] of request.messages.entries()) {
    if (m.role === 'system' || m.role === 'developer') continue;
    // Tool results go back in a user turn: the Messages API has no `tool` role; same-role turns merge.
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(m, i, request.model);
    // The Messages API refuses empty turns; OpenAI takes an empty message as saying nothing.
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  if (messages.length === 0) {
    // The Messages API needs a message: a request of system text alone sends that text as the user's turn.
    if (!system) {
      throw new ServiceError(
        'invalid_request',
        `Model '${request.model}' needs a message with content; every message of the request is empty.`,
        { param: 'messages', code: 'invalid_value' },
      );
    }
    messages.push({ role: 'user', content: [{ type: 'text', text: system }] });
    system = '';
  }
  const responseTool = responseToolOf(request);
  const tools = responseTool
    ? withResponseTool(toolFields(request), responseTool, request)
    : toolFields(request);
  const stop = request.stop;
  return {
    model: call.upstreamModel,
    max_tokens: call.maxTokens,
    messages,
    ...(system && { system }),
    ...(stop !== null && stop !== undefined && { stop_sequences: typeof stop === 'string' ? [stop] : stop }),
    // Anthropic's temperature runs 0..1, OpenAI's 0..2.
    ...(typeof request.temperature === 'number' && { temperature: Math.min(1, request.temperature) }),
    // Anthropic's newer models refuse temperature and top_p together; the temperature is kept.
    ...(typeof request.top_p === 'number' &&
      typeof request.temperature !== 'number' && { top_p: request.top_p }),
    ...(request.user && { metadata: { user_id: request.user } }),
    ...tools,
    ...(stream && { stream: true }),
  };
}

export function finishOfStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    // The answer ran into the end of the context window: cut short, as OpenAI says of a cap reached.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

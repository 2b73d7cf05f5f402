import type { ChatCompletionRequest, ChatMessage, ToolCall } from '@tessera/shared';
import { contentText } from '../tokenizer';

/** A Messages API content block (the kinds the translation produces). */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** One OpenAI message as Anthropic blocks: tool calls become tool_use, tool messages tool_result (a user turn). */
export function blocksOf(m: ChatMessage): AnthropicBlock[] {
  const text = contentText(m.content);
  if (m.role === 'tool') return [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: text }];
  const blocks: AnthropicBlock[] = text ? [{ type: 'text', text }] : [];
  for (const call of m.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return blocks;
}

/** OpenAI's `tools` and `tool_choice` in Anthropic's terms; empty when the request has none. */
export function toolFields(request: ChatCompletionRequest): Record<string, unknown> {
  const tools = (request.tools ?? [])
    .filter((t) => t.type === 'function' && t.function)
    .map((t) => ({
      name: t.function?.name,
      ...(typeof t.function?.description === 'string' && { description: t.function.description }),
      input_schema: t.function?.parameters ?? { type: 'object', properties: {} },
    }));
  if (tools.length === 0) return {};
  const choice = request.tool_choice;
  let toolChoice: Record<string, unknown> | undefined;
  if (choice === 'auto') toolChoice = { type: 'auto' };
  else if (choice === 'required') toolChoice = { type: 'any' };
  else if (choice === 'none') toolChoice = { type: 'none' };
  else if (choice && typeof choice === 'object') {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name === 'string') toolChoice = { type: 'tool', name };
  }
  return { tools, ...(toolChoice && { tool_choice: toolChoice }) };
}

/** Anthropic's tool_use blocks as OpenAI tool calls. */
export function toolCallsOf(
  blocks: { type: string; id?: string; name?: string; input?: unknown }[],
): ToolCall[] {
  return blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({
      id: b.id ?? '',
      type: 'function' as const,
      function: { name: b.name ?? '', arguments: JSON.stringify(b.input ?? {}) },
    }));
}

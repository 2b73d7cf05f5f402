import type { ChatCompletionRequest, ChatContentPart, ChatMessage, ToolCall } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { contentText } from '../tokenizer';

/** Where an image block's bytes come from: inline (a `data:` URL) or fetched by Anthropic from a URL. */
type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

/** A Messages API content block (the kinds the translation produces). */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: ImageSource }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/**
 * A tool call's arguments as the input of a tool_use block, which must be a JSON object. Arguments that are not
 * one are a 400 naming them: sent on as `{}`, the model would be told the tool was called with nothing.
 */
function parseArguments(text: string, param: string): unknown {
  if (text.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    input = undefined;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    throw new ServiceError(
      'invalid_request',
      `Invalid value for '${param}': expected a JSON object encoded as a string, but received '${shown}'.`,
      { param, code: 'invalid_value' },
    );
  }
  return input;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.+)$/s;

/**
 * One content part as an Anthropic block: text as text, an `image_url` part as an image (a `data:` URL inline, an
 * http(s) URL for Anthropic to fetch). Anything else (audio, files) is a 400 naming the part, rather than a
 * silent answer to a prompt the model never saw whole.
 */
function partBlock(part: ChatContentPart, param: string, model: string): AnthropicBlock | undefined {
  if (part.type === 'text') return part.text ? { type: 'text', text: part.text } : undefined;
  if (part.type === 'image_url') {
    const image = (part as { image_url?: { url?: unknown } | string }).image_url;
    const url = typeof image === 'string' ? image : image?.url;
    if (typeof url === 'string') {
      const inline = DATA_URL.exec(url);
      if (inline)
        return {
          type: 'image',
          source: { type: 'base64', media_type: inline[1] ?? '', data: inline[2] ?? '' },
        };
      if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
    }
    throw new ServiceError(
      'invalid_request',
      `Invalid image_url at ${param}: expected a base64 data: URL or an http(s) URL, received ${typeof url === 'string' ? `a URL of scheme '${url.split(':')[0]?.slice(0, 20)}:'` : typeof url}.`,
      { param: `${param}.image_url.url`, code: 'invalid_value' },
    );
  }
  throw new ServiceError(
    'invalid_request',
    `Model '${model}' takes text and image_url content parts; ${param} is of type '${part.type}'.`,
    { param: `${param}.type`, code: 'invalid_value' },
  );
}

/**
 * One OpenAI message (the `index`-th of the request) as Anthropic blocks: content parts in order, tool calls as
 * tool_use, tool messages as tool_result (a user turn).
 */
export function blocksOf(m: ChatMessage, index: number, model: string): AnthropicBlock[] {
  if (m.role === 'tool') {
    return [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: contentText(m.content) }];
  }
  const blocks: AnthropicBlock[] = [];
  if (typeof m.content === 'string') {
    if (m.content) blocks.push({ type: 'text', text: m.content });
  } else if (m.content) {
    for (const [j, part] of m.content.entries()) {
      const block = partBlock(part, `messages[${index}].content[${j}]`, model);
      if (block) blocks.push(block);
    }
  }
  for (const [k, call] of (m.tool_calls ?? []).entries()) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(
        call.function.arguments,
        `messages[${index}].tool_calls[${k}].function.arguments`,
      ),
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
  // OpenAI's parallel_tool_calls: false is Anthropic's disable_parallel_tool_use, which sits in tool_choice.
  if (
    (request as { parallel_tool_calls?: unknown }).parallel_tool_calls === false &&
    toolChoice?.type !== 'none'
  ) {
    toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true };
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

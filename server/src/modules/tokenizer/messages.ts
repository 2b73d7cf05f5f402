import type { ChatCompletionRequest, ChatContent, ChatMessage } from '@tessera/shared';
import { countTokens } from './encoder';
import { imagePartTokens } from './images';
import { countTokensAside } from './thread';

/** The function tools a request declares, as the prompt counts them. */
export type ToolDefinitions = ChatCompletionRequest['tools'];

// OpenAI's documented accounting for chat prompts (gpt-4o family): each message is wrapped in 3 tokens of
// framing, a name costs 1 more, and the reply is primed with 3.
const PER_MESSAGE = 3;
const PER_NAME = 1;
const REPLY_PRIMING = 3;

/** The text of a message's content; non-text parts (images, audio) carry no text to count. */
export function contentText(content: ChatContent | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

// OpenAI's cookbook accounting for function definitions (gpt-4o family): each function costs 7 tokens of framing
// and its "name:description" line; its parameters 3, each parameter 3 and its "name:type:description" line; an
// enum takes 3 back and costs 3 per value and the value; the definitions together end with 12.
const FUNCTION_INIT = 7;
const PROPERTIES_INIT = 3;
const PROPERTY_KEY = 3;
const ENUM_INIT = -3;
const ENUM_ITEM = 3;
const FUNCTIONS_END = 12;

/** The tokens an image part costs, by OpenAI's accounting for its size and detail (images.ts). */
function imageTokens(content: ChatContent | null | undefined): number {
  if (content === null || content === undefined || typeof content === 'string') return 0;
  let tokens = 0;
  for (const part of content) if (part.type === 'image_url') tokens += imagePartTokens(part);
  return tokens;
}

function withoutPeriod(text: unknown): string {
  const s = typeof text === 'string' ? text : '';
  return s.endsWith('.') ? s.slice(0, -1) : s;
}

/**
 * The function definitions, counted as OpenAI's cookbook does (`num_tokens_for_tools`). It reads the top-level
 * parameters only; a parameter that is itself an object or an array also has its schema's JSON counted here.
 */
function walkTools(tools: ToolDefinitions, visit: (text: string) => void): number {
  if (!tools || tools.length === 0) return 0;
  let framing = FUNCTIONS_END;
  for (const tool of tools) {
    const fn = tool.function as { name?: string; description?: unknown; parameters?: unknown } | undefined;
    if (!fn) continue;
    framing += FUNCTION_INIT;
    visit(`${fn.name ?? ''}:${withoutPeriod(fn.description)}`);
    const properties = (fn.parameters as { properties?: unknown } | undefined)?.properties;
    if (!properties || typeof properties !== 'object') continue;
    const entries = Object.entries(properties as Record<string, Record<string, unknown> | null>);
    if (entries.length === 0) continue;
    framing += PROPERTIES_INIT;
    for (const [key, schema] of entries) {
      framing += PROPERTY_KEY;
      const property = schema ?? {};
      if (Array.isArray(property.enum)) {
        framing += ENUM_INIT;
        for (const item of property.enum) {
          framing += ENUM_ITEM;
          visit(String(item));
        }
      }
      const type = typeof property.type === 'string' ? property.type : JSON.stringify(property.type ?? '');
      visit(`${key}:${type}:${withoutPeriod(property.description)}`);
      if (property.properties !== undefined) visit(JSON.stringify(property.properties));
      if (property.items !== undefined) visit(JSON.stringify(property.items));
    }
  }
  return framing;
}

/**
 * Calls `visit` with each text of the prompt that is counted (role, content, name, tool calls, the functions
 * declared), in order, and returns the tokens that come on top of them: framing, and images (counted by their
 * size, not as text). The one place the accounting's rules are written.
 */
function walkPrompt(messages: ChatMessage[], tools: ToolDefinitions, visit: (text: string) => void): number {
  let framing = REPLY_PRIMING + walkTools(tools, visit);
  for (const m of messages) {
    framing += PER_MESSAGE;
    visit(m.role);
    visit(contentText(m.content));
    framing += imageTokens(m.content);
    if (m.name) {
      framing += PER_NAME;
      visit(m.name);
    }
    if (m.tool_calls) {
      for (const call of m.tool_calls) {
        visit(call.function.name);
        visit(call.function.arguments);
      }
    }
  }
  return framing;
}

/** Prompt tokens of a chat request, counted with the real BPE. */
export function countPromptTokens(messages: ChatMessage[], tools?: ToolDefinitions): number {
  let total = 0;
  const framing = walkPrompt(messages, tools, (text) => {
    total += countTokens(text);
  });
  return framing + total;
}

/** The characters a prompt's count reads: what decides how long counting it takes. */
export function promptLength(messages: ChatMessage[], tools?: ToolDefinitions): number {
  let length = 0;
  walkPrompt(messages, tools, (text) => {
    length += text.length;
  });
  return length;
}

/** A prompt's count; `complete` is false when counting stopped at the limit (the prompt has at least `tokens`). */
export interface PromptCount {
  tokens: number;
  complete: boolean;
}

/**
 * countPromptTokens, counted off the event loop (thread.ts): for prompts long enough that counting them on it
 * would hold every other request up. Counting stops once the prompt reaches `limit` tokens: a caller that only
 * needs to know the prompt is past a model's context need not count the rest (megabytes, seconds of a thread).
 */
export async function countLongPromptTokens(
  messages: ChatMessage[],
  tools?: ToolDefinitions,
  owner?: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<PromptCount> {
  const texts: string[] = [];
  const framing = walkPrompt(messages, tools, (text) => {
    texts.push(text);
  });
  if (framing >= limit) return { tokens: framing, complete: false };
  const count = await countTokensAside(texts, owner, limit - framing);
  return { tokens: framing + count.tokens, complete: count.complete };
}

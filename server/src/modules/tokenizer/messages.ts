import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChatCompletionRequest, ChatContent, ChatMessage } from '@tessera/shared';
import { countTokens, fewestTokens } from './encoder';
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

/** The framing tokens counted so far by a walk (walkPrompt): those before the text it last gave. */
interface Framing {
  tokens: number;
}

/**
 * The function definitions' texts, counted as OpenAI's cookbook does (`num_tokens_for_tools`). It reads the
 * top-level parameters only; a parameter that is itself an object or an array also has its schema's JSON counted
 * here. A schema may hold tens of thousands of properties: their keys are read without `Object.entries`' pair per
 * property (4× slower).
 */
function* walkTools(tools: ToolDefinitions, framing: Framing): Generator<string> {
  if (!tools || tools.length === 0) return;
  framing.tokens += FUNCTIONS_END;
  for (const tool of tools) {
    const fn = tool.function as { name?: string; description?: unknown; parameters?: unknown } | undefined;
    if (!fn) continue;
    framing.tokens += FUNCTION_INIT;
    yield `${fn.name ?? ''}:${withoutPeriod(fn.description)}`;
    const properties = (fn.parameters as { properties?: unknown } | undefined)?.properties;
    if (!properties || typeof properties !== 'object') continue;
    const keys = Object.keys(properties);
    if (keys.length === 0) continue;
    framing.tokens += PROPERTIES_INIT;
    for (const key of keys) {
      framing.tokens += PROPERTY_KEY;
      const property = (properties as Record<string, Record<string, unknown> | null>)[key] ?? {};
      if (Array.isArray(property.enum)) {
        framing.tokens += ENUM_INIT;
        for (const item of property.enum) {
          framing.tokens += ENUM_ITEM;
          yield String(item);
        }
      }
      const type = typeof property.type === 'string' ? property.type : JSON.stringify(property.type ?? '');
      yield `${key}:${type}:${withoutPeriod(property.description)}`;
      if (property.properties !== undefined) yield JSON.stringify(property.properties);
      if (property.items !== undefined) yield JSON.stringify(property.items);
    }
  }
}

/**
 * Each text of the prompt that is counted (role, content, name, tool calls, the functions declared), in order;
 * `framing` holds the tokens that come on top of them (framing, and images, counted by their size, not as text),
 * up to where the walk has got. A caller that has read enough (a length past a threshold, a count past a limit)
 * stops it there; a long one pauses it between texts. The one place the accounting's rules are written.
 */
function* walkPrompt(messages: ChatMessage[], tools: ToolDefinitions, framing: Framing): Generator<string> {
  framing.tokens += REPLY_PRIMING;
  // Most prompts declare no tools: no generator made for them, nor a `yield*` to pass through.
  if (tools && tools.length > 0) yield* walkTools(tools, framing);
  for (const m of messages) {
    framing.tokens += PER_MESSAGE;
    yield m.role;
    yield contentText(m.content);
    framing.tokens += imageTokens(m.content);
    if (m.name) {
      framing.tokens += PER_NAME;
      yield m.name;
    }
    if (m.tool_calls) {
      for (const call of m.tool_calls) {
        yield call.function.name;
        yield call.function.arguments;
      }
    }
  }
}

/** Prompt tokens of a chat request, counted with the real BPE. */
export function countPromptTokens(messages: ChatMessage[], tools?: ToolDefinitions): number {
  const framing = { tokens: 0 };
  let total = 0;
  for (const text of walkPrompt(messages, tools, framing)) total += countTokens(text);
  return framing.tokens + total;
}

/**
 * The characters a prompt's count reads: what decides how long counting it takes. With `atMost`, the walk stops
 * once the length passes it (a caller asking "is it longer than this?" need not walk a huge schema to the end).
 */
export function promptLength(
  messages: ChatMessage[],
  tools?: ToolDefinitions,
  atMost = Number.POSITIVE_INFINITY,
): number {
  let length = 0;
  for (const text of walkPrompt(messages, tools, { tokens: 0 })) {
    length += text.length;
    if (length > atMost) break;
  }
  return length;
}

/** Texts of a long prompt walked in one turn of the event loop (a few ms at most on a slow machine). */
const TEXTS_A_TURN = 2_000;

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
  // What is past the limit by its length alone (megabytes, tens of thousands of schema properties) is refused
  // without being counted, or even read to its end; a walk of many texts lets other requests in between.
  const framing = { tokens: 0 };
  let fewest = 0;
  for (const text of walkPrompt(messages, tools, framing)) {
    texts.push(text);
    fewest += fewestTokens(text);
    if (framing.tokens + fewest >= limit) return { tokens: framing.tokens + fewest, complete: false };
    if (texts.length % TEXTS_A_TURN === 0) await nextTurn();
  }
  const count = await countTokensAside(texts, owner, limit - framing.tokens);
  return { tokens: framing.tokens + count.tokens, complete: count.complete };
}

import type { ChatContent, ChatMessage } from '@tessera/shared';
import { countTokens } from './encoder';
import { countTokensAside } from './thread';

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

/** Prompt tokens of a chat request, counted with the real BPE. */
export function countPromptTokens(messages: ChatMessage[]): number {
  let total = REPLY_PRIMING;
  for (const m of messages) {
    total += PER_MESSAGE + countTokens(m.role) + countTokens(contentText(m.content));
    if (m.name) total += PER_NAME + countTokens(m.name);
    for (const call of m.tool_calls ?? []) {
      total += countTokens(call.function.name) + countTokens(call.function.arguments);
    }
  }
  return total;
}

/** The characters a prompt's count reads: what decides how long counting it takes. */
export function promptLength(messages: ChatMessage[]): number {
  let length = 0;
  for (const m of messages) {
    length += m.role.length + (m.name?.length ?? 0);
    const content = m.content;
    if (typeof content === 'string') length += content.length;
    else if (content) for (const part of content) length += part.text?.length ?? 0;
    for (const call of m.tool_calls ?? [])
      length += call.function.name.length + call.function.arguments.length;
  }
  return length;
}

/**
 * countPromptTokens, counted off the event loop (thread.ts): for prompts long enough that counting them on it
 * would hold every other request up.
 */
export async function countLongPromptTokens(messages: ChatMessage[]): Promise<number> {
  let framing = REPLY_PRIMING;
  const texts: string[] = [];
  for (const m of messages) {
    framing += PER_MESSAGE;
    texts.push(m.role, contentText(m.content));
    if (m.name) {
      framing += PER_NAME;
      texts.push(m.name);
    }
    for (const call of m.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
  }
  return framing + (await countTokensAside(texts));
}

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

/**
 * Calls `visit` with each text of the prompt that is counted (role, content, name, tool calls), in order, and
 * returns the framing tokens that come on top of them. The one place the accounting's rules are written.
 */
function walkPrompt(messages: ChatMessage[], visit: (text: string) => void): number {
  let framing = REPLY_PRIMING;
  for (const m of messages) {
    framing += PER_MESSAGE;
    visit(m.role);
    visit(contentText(m.content));
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
export function countPromptTokens(messages: ChatMessage[]): number {
  let total = 0;
  const framing = walkPrompt(messages, (text) => {
    total += countTokens(text);
  });
  return framing + total;
}

/** The characters a prompt's count reads: what decides how long counting it takes. */
export function promptLength(messages: ChatMessage[]): number {
  let length = 0;
  walkPrompt(messages, (text) => {
    length += text.length;
  });
  return length;
}

/**
 * countPromptTokens, counted off the event loop (thread.ts): for prompts long enough that counting them on it
 * would hold every other request up.
 */
export async function countLongPromptTokens(messages: ChatMessage[]): Promise<number> {
  const texts: string[] = [];
  const framing = walkPrompt(messages, (text) => {
    texts.push(text);
  });
  return framing + (await countTokensAside(texts));
}

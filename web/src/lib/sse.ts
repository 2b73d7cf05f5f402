import { SseParser } from '@tessera/shared';

/**
 * Reads a Server-Sent Events body and yields each event's data (the shared parser the server reads upstreams
 * with: data lines joined, lines and events split anywhere across chunks).
 */
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const event of parser.push(value)) yield event.data;
    }
    for (const event of parser.end()) yield event.data;
  } finally {
    reader.releaseLock();
  }
}

/** The token counts of a stream's usage chunk (`stream_options.include_usage`). */
export interface StreamUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface ChunkShape {
  choices?: { delta?: { content?: string | null } }[];
  usage?: StreamUsage | null;
  system_fingerprint?: string | null;
  error?: { message?: string };
}

/** What one chunk of a chat completion stream says: a text piece, the usage, the fingerprint of who answered. */
export interface ChatStreamEvent {
  content?: string;
  usage?: StreamUsage;
  fingerprint?: string | null;
}

/** The chunks of an OpenAI-style chat completion stream, in order, until `[DONE]`; an error event throws. */
export async function* chatEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatStreamEvent> {
  for await (const data of readSseData(body)) {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as ChunkShape;
    if (chunk.error) throw new Error(chunk.error.message ?? 'The stream ended with an error.');
    const event: ChatStreamEvent = {};
    const piece = chunk.choices?.[0]?.delta?.content;
    if (piece) event.content = piece;
    if (chunk.usage) event.usage = chunk.usage;
    if (chunk.system_fingerprint !== undefined) event.fingerprint = chunk.system_fingerprint;
    yield event;
  }
}

/** The text pieces of an OpenAI-style chat completion stream, in order, until `[DONE]`. */
export async function* chatDeltas(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const event of chatEvents(body)) if (event.content) yield event.content;
}

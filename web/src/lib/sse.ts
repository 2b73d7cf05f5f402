/**
 * Reads a Server-Sent Events body and yields each event's data, joined across `data:` lines as the spec says.
 * Chunks may split lines and events anywhere, so the buffer keeps the unfinished tail.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl = buffer.search(/\r?\n/);
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(buffer[nl] === '\r' ? nl + 2 : nl + 1);
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        nl = buffer.search(/\r?\n/);
      }
    }
    if (data.length) yield data.join('\n');
  } finally {
    reader.releaseLock();
  }
}

interface ChunkShape {
  choices?: { delta?: { content?: string | null } }[];
  error?: { message?: string };
}

/** The text pieces of an OpenAI-style chat completion stream, in order, until `[DONE]`. */
export async function* chatDeltas(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const data of readSseData(body)) {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as ChunkShape;
    if (chunk.error) throw new Error(chunk.error.message ?? 'The stream ended with an error.');
    const piece = chunk.choices?.[0]?.delta?.content;
    if (piece) yield piece;
  }
}

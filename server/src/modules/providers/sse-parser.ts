export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Reads Server-Sent Events from a byte stream (lines `event:` and `data:`, blank line between events). */
export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  for await (const bytes of body) {
    buffer += typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        event = undefined;
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      } else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
      }
    }
  }
  if (data.length > 0) yield { event, data: data.join('\n') };
}

/** An event's JSON; a malformed one is the upstream's failure. */
export function parseEventJson<T>(event: SseEvent, onError: (message: string) => Error): T {
  try {
    return JSON.parse(event.data) as T;
  } catch {
    throw onError('a stream event was not valid JSON');
  }
}

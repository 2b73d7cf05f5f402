export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A line (or an event) longer than this is no event stream: the upstream is failing, and the buffer must not grow without end. */
export const MAX_SSE_LINE = 8 * 1024 * 1024;

/**
 * Reads Server-Sent Events from a byte stream (lines `event:` and `data:`, blank line between events). Each
 * byte is searched for a line end once: a long line arriving in many reads costs no rescans.
 */
export async function* parseSse(
  body: AsyncIterable<Uint8Array | string>,
  onTooLong: (message: string) => Error = (m) => new Error(m),
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let scanned = 0;
  let event: string | undefined;
  let data: string[] = [];
  let pending = 0;
  for await (const bytes of body) {
    buffer += typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true });
    let start = 0;
    let newline = buffer.indexOf('\n', scanned);
    while (newline >= 0) {
      const line = buffer.slice(start, newline).replace(/\r$/, '');
      start = newline + 1;
      newline = buffer.indexOf('\n', start);
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        event = undefined;
        data = [];
        pending = 0;
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
        pending += line.length;
        if (pending > MAX_SSE_LINE) throw onTooLong(`a stream event was longer than ${MAX_SSE_LINE} bytes`);
      } else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
      }
    }
    buffer = buffer.slice(start);
    scanned = buffer.length;
    if (scanned > MAX_SSE_LINE) throw onTooLong(`a stream line was longer than ${MAX_SSE_LINE} bytes`);
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

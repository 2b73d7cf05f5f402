/**
 * The one Server-Sent Events parser of the server (upstream providers' streams) and the dashboard (its own
 * streams).
 */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A line (or an event) longer than this is no event stream: the upstream is failing, and the buffer must not grow without end. */
export const MAX_SSE_LINE = 8 * 1024 * 1024;

/**
 * Server-Sent Events from bytes as they arrive (lines `event:` and `data:`, blank line between events): `push`
 * each read, `end` after the last. Each byte is searched for a line end once: a long line arriving in many
 * reads costs no rescans. Synchronous, so that a read's events cost no promise each.
 *
 * Not eventsource-parser: its `feed` splits `incompleteLine + chunk` again on every read (v3), so a long line
 * arriving in many reads is rescanned from its start each time (quadratic in its length), and nothing bounds
 * what it buffers; an upstream sending an endless line would cost the event loop that much, with no error.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private scanned = 0;
  private event: string | undefined;
  /** The event's data lines so far, joined by newlines; undefined before its first. */
  private data: string | undefined;

  constructor(private readonly onTooLong: (message: string) => Error = (m) => new Error(m)) {}

  /** The events a read completes (often none or one, several when the upstream's writes were merged). */
  push(bytes: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    let buffer =
      this.buffer + (typeof bytes === 'string' ? bytes : this.decoder.decode(bytes, { stream: true }));
    let start = 0;
    let newline = buffer.indexOf('\n', this.scanned);
    while (newline >= 0) {
      const end = newline > start && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      const line = buffer.slice(start, end);
      start = newline + 1;
      newline = buffer.indexOf('\n', start);
      if (line === '') {
        if (this.data !== undefined) events.push({ event: this.event, data: this.data });
        this.event = undefined;
        this.data = undefined;
      } else if (line.startsWith('data:')) {
        const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        this.data = this.data === undefined ? value : `${this.data}\n${value}`;
        if (this.data.length > MAX_SSE_LINE)
          throw this.onTooLong(`a stream event was longer than ${MAX_SSE_LINE} bytes`);
      } else if (line.startsWith('event:')) {
        this.event = line.slice(6).trim();
      }
    }
    buffer = start === 0 ? buffer : buffer.slice(start);
    this.buffer = buffer;
    this.scanned = buffer.length;
    if (this.scanned > MAX_SSE_LINE)
      throw this.onTooLong(`a stream line was longer than ${MAX_SSE_LINE} bytes`);
    return events;
  }

  /** An event the body ended in without its blank line. */
  end(): SseEvent[] {
    if (this.data === undefined) return [];
    const last = { event: this.event, data: this.data };
    this.data = undefined;
    return [last];
  }
}

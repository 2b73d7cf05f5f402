import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/**
 * The one Server-Sent Events parser of the server (upstream providers' streams) and the dashboard (its own
 * streams): eventsource-parser, behind the push/end shape both read with.
 */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/** An event (or a line) longer than this is no event stream: the upstream is failing, and the buffer must not grow without end. */
export const MAX_SSE_LINE = 8 * 1024 * 1024;

/**
 * Server-Sent Events from bytes as they arrive: `push` each read, `end` after the last. Synchronous, so that a
 * read's events cost no promise each. eventsource-parser keeps an unfinished line as a list of the reads'
 * pieces, joined once when its end arrives, so a long line in many reads costs time linear in its length (the
 * hand-written parser this replaces searched the concatenated buffer on every read: 15 s of event loop for a
 * 4 MiB line in 1 KiB reads, against 36 ms), and its `maxBufferSize` bounds what is held.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private events: SseEvent[] = [];
  private tooLong: Error | undefined;
  /** Whether the text so far ends inside a line (its last character is not a line feed). */
  private midLine = false;

  constructor(onTooLong: (message: string) => Error = (m) => new Error(m)) {
    this.parser = createParser({
      maxBufferSize: MAX_SSE_LINE,
      onEvent: (event: EventSourceMessage) => {
        this.events.push(event);
      },
      // Unknown fields and bad `retry` values are ignored, as a browser's EventSource does.
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded')
          this.tooLong = onTooLong(`a stream event was longer than ${MAX_SSE_LINE} characters`);
      },
    });
  }

  /** The events a read completes (often none or one, several when the upstream's writes were merged). */
  push(bytes: Uint8Array | string): SseEvent[] {
    if (this.tooLong) throw this.tooLong;
    const text = typeof bytes === 'string' ? bytes : this.decoder.decode(bytes, { stream: true });
    if (text.length > 0) this.midLine = text.charCodeAt(text.length - 1) !== 10;
    this.parser.feed(text);
    return this.take();
  }

  /**
   * The event the body ended in after its last line's end but without the blank line, which the specification
   * drops: upstreams that close right after their last `data:` line still get it delivered. A line the body
   * ended in the middle of is dropped with its event, as cut data.
   */
  end(): SseEvent[] {
    if (this.tooLong) throw this.tooLong;
    if (this.midLine || this.decoder.decode().length > 0) this.parser.reset();
    else this.parser.feed('\n');
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.tooLong) throw this.tooLong;
    const events = this.events;
    this.events = [];
    return events;
  }
}

import type { Response } from 'express';
import type { RequestContext, UsageRecord } from '../../http/request-context';
import type { ChatSink } from '../../modules/chat';
import { toHttpError } from '../errors';

/**
 * Server-Sent Events on an Express response. What is sent in one turn of the event loop (the headers and the
 * events parsed from the upstream's reads, or the last chunk, the usage and [DONE]) is gathered into one string
 * and leaves in one write when the turn's I/O is done: a write each cost a system call and a TCP segment per
 * event, and a call of Node.js's write path per event. The headers never wait for a token: they leave at the
 * end of the turn in which the provider accepted the call.
 */
export class SseSink implements ChatSink {
  /** The events of this turn, not yet handed to the response. */
  private pending = '';
  private scheduled = false;
  /** The headers wait in the corked response until the end of the turn that opened the stream. */
  private corked = false;

  constructor(
    private readonly res: Response,
    /** The request's context: its id names an error event, whose cause goes to its usage record. */
    private readonly request: RequestContext,
    /** How long a client may leave its full connection unread before it is cut off. */
    private readonly stallMs: number,
  ) {}

  private flush(): void {
    this.scheduled = false;
    const res = this.res;
    const text = this.pending;
    this.pending = '';
    if (!res.writableEnded && !res.destroyed && text !== '') res.write(text);
    if (this.corked) {
      this.corked = false;
      res.uncork();
    }
  }

  /** Sends what is gathered at the end of this turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private write(text: string): void {
    const res = this.res;
    if (res.writableEnded || res.destroyed) return;
    this.pending += text;
    this.schedule();
  }

  /** What is gathered, then the end of the response (one write, with the chunked terminator). */
  private finish(last: string): void {
    const text = this.pending + last;
    this.pending = '';
    // end() uncorks the connection fully: the flush still scheduled must not uncork it again, since the
    // connection may be serving its next request by then.
    this.corked = false;
    const res = this.res;
    if (res.writableEnded) return;
    if (text === '') res.end();
    else res.end(text);
  }

  open(): void {
    const res = this.res;
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    // Not while the server shuts down: the response then carries `Connection: close` (shutdown.ts).
    if (res.shouldKeepAlive) res.setHeader('connection', 'keep-alive');
    // Proxies such as nginx would otherwise buffer the stream.
    res.setHeader('x-accel-buffering', 'no');
    this.corked = true;
    res.cork();
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.schedule();
  }

  /**
   * Backpressure. The events wait for the end of the turn, and then in Node.js's buffers and the kernel's; once
   * the connection takes no more (the client reads slower than the model writes), what is gathered goes out now
   * and the stream waits for the connection to drain. A client that leaves it full for `stallMs` is cut off.
   */
  ready(): Promise<void> | undefined {
    const res = this.res;
    if (this.pending.length < SSE_GATHER_LIMIT && !res.writableNeedDrain) return undefined;
    if (this.pending.length > 0 || this.corked) this.flush();
    if (!res.writableNeedDrain || res.destroyed) return undefined;
    return drained(res, this.request.usage, this.stallMs);
  }

  send(json: string): void {
    this.write(`data: ${json}\n\n`);
  }

  /** A named event (`event:` then `data:`), as the Responses API streams them. */
  event(type: string, json: string): void {
    this.write(`event: ${type}\ndata: ${json}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** The error event; the request is metered as this error, though its stream opened with a 200. */
  error(err: unknown): void {
    const http = toHttpError(err, this.request.requestId);
    this.request.usage.failed(http.body.error);
    this.request.usage.status = http.status;
    this.write(`data: ${JSON.stringify(http.body)}\n\n`);
  }

  done(): void {
    this.finish('data: [DONE]\n\n');
  }

  end(): void {
    this.finish('');
  }
}

/** What a turn may gather before it is written at once (a burst of events from the upstream). */
const SSE_GATHER_LIMIT = 64 * 1024;

/**
 * Settles when the response's connection has drained or has closed. A client that reads nothing for `stallMs`
 * is cut off: its connection is destroyed, which aborts the model call like any client that leaves (its tokens
 * so far are metered), and its usage event says why.
 */
function drained(res: Response, usage: UsageRecord, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(() => {
      usage.failed({
        type: 'invalid_request_error',
        code: 'client_stalled',
        message: `The client read nothing of the stream for ${stallMs} ms (STREAM_CLIENT_STALL_MS) while it waited; the connection was closed.`,
      });
      res.destroy();
    }, stallMs);
    res.on('drain', done);
    res.on('close', done);
  });
}

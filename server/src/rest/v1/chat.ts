import type { Response } from 'express';
import { ServiceError } from '../../errors';
import { locals, recordError, recordUsage } from '../../http/locals';
import { CallAbortController } from '../../lib/call-abort';
import type { ChatSink } from '../../modules/chat';
import { requireModel } from '../../modules/keys';
import type { Services } from '../../services';
import { toHttpError } from '../errors';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';

/**
 * Server-Sent Events on an Express response. What is sent in one turn of the event loop (the headers and the
 * events parsed from the upstream's reads, or the last chunk, the usage and [DONE]) is gathered into one string
 * and leaves in one write when the turn's I/O is done: a write each cost a system call and a TCP segment per
 * event, and a call of Node.js's write path per event. The headers never wait for a token: they leave at the
 * end of the turn in which the provider accepted the call.
 */
class SseSink implements ChatSink {
  /** The events of this turn, not yet handed to the response. */
  private pending = '';
  private scheduled = false;
  /** The headers wait in the corked response until the end of the turn that opened the stream. */
  private corked = false;

  constructor(
    private readonly res: Response,
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
    return drained(res, this.stallMs);
  }

  send(json: string): void {
    this.write(`data: ${json}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  error(err: unknown): void {
    const http = toHttpError(err, locals(this.res).requestId);
    recordError(this.res, http.body.error);
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
function drained(res: Response, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(() => {
      recordError(res, {
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

/**
 * Why a call was aborted when its client left: a known error, so that it is neither logged as a failure nor
 * mapped to a 500 (the response can no longer be sent; the request is metered as 499).
 */
function clientClosed(): ServiceError {
  return new ServiceError(
    'invalid_request',
    'The client closed the connection before the response was complete.',
    { code: 'client_closed' },
  );
}

/** The provider that answered a chat call: `simulator`, or the configured upstream's name. */
export const PROVIDER_HEADER = 'x-tessera-provider';

export function chatRoutes(services: Services): RestRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/chat/completions',
      scope: 'chat',
      body: true,
      bodyLimit: services.ctx.config.chatBodyLimitBytes,
      handler: async (req, res, principal) => {
        // The client leaving (before the response is complete) aborts the model call at once, or before it
        // starts if a long prompt was still being counted.
        const abort = new CallAbortController();
        res.on('close', () => {
          if (!res.writableFinished) abort.abort(clientClosed());
        });
        const prepared = await services.chat.prepare(req.body, principal.accountId);
        requireModel(principal, prepared.entry.id);
        // A call refused before any model sees it (the allowance's 429, its 503 in an outage) consumed
        // nothing: metered with its model and 0 tokens, so that usage adds up to what the allowance counted.
        // The service's answer replaces this with what the call consumed once it ran.
        recordUsage(res, { model: prepared.entry.id, promptTokens: 0, completionTokens: 0 });
        const call = {
          principal,
          allowance: services.allowance,
          prepared,
          abort,
          // Set before each attempt: a stream's headers leave once its provider accepted the call, and an
          // error names the provider that failed. Clients that show headers see who answered.
          onProvider(name: string) {
            if (!res.headersSent) res.setHeader(PROVIDER_HEADER, name);
          },
        };
        // The service answers with what the call consumed, however it ended: recorded, then sent.
        if (prepared.request.stream) {
          const ended = await services.chat.stream(
            call,
            new SseSink(res, services.ctx.config.chat.clientStallMs),
          );
          recordUsage(res, ended.usage);
          if (!ended.ok) throw ended.error;
        } else {
          const ended = await services.chat.complete(call);
          recordUsage(res, ended.usage);
          if (!ended.ok) throw ended.error;
          sendJson(res, 200, ended.value);
        }
      },
    },
  ];
}

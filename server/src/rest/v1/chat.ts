import type { Response } from 'express';
import { CallAbortController } from '../../lib/call-abort';
import type { ChatSink } from '../../modules/chat';
import type { Services } from '../../services';
import { toHttpError } from '../errors';
import { locals } from '../middleware/locals';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';

/**
 * Server-Sent Events on an Express response. What is written in one turn of the event loop (the headers and the
 * events parsed from the upstream's reads, or the last chunk, the usage and [DONE]) leaves in one write, when
 * the turn's I/O is done: a write each cost a system call and a TCP segment per event. The headers never wait
 * for a token: they leave at the end of the turn in which the provider accepted the call.
 */
class SseSink implements ChatSink {
  private corked = false;
  // Bound once: a closure per call would be renamed by tsx's transform each time it is made.
  private readonly uncork = this.flush.bind(this);

  constructor(private readonly res: Response) {}

  private flush(): void {
    this.corked = false;
    this.res.uncork();
  }

  /** Holds writes until the end of this turn of the event loop. */
  private hold(): void {
    if (this.corked) return;
    this.corked = true;
    this.res.cork();
    setImmediate(this.uncork);
  }

  private write(text: string): void {
    const res = this.res;
    if (res.writableEnded || res.destroyed) return;
    this.hold();
    res.write(text);
  }

  open(): void {
    const res = this.res;
    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('connection', 'keep-alive');
    // Proxies such as nginx would otherwise buffer the stream.
    res.setHeader('x-accel-buffering', 'no');
    this.hold();
    res.flushHeaders();
    res.socket?.setNoDelay(true);
  }

  send(data: unknown): void {
    this.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  error(err: unknown): void {
    const l = locals(this.res);
    const http = toHttpError(err, l.requestId);
    l.errorType = http.body.error.type;
    l.errorCode = http.body.error.code;
    l.errorMessage = http.body.error.message;
    this.write(`data: ${JSON.stringify(http.body)}\n\n`);
  }

  done(): void {
    this.write('data: [DONE]\n\n');
    if (!this.res.writableEnded) this.res.end();
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}

export function chatRoutes(services: Services): RestRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/chat/completions',
      body: true,
      bodyLimit: services.ctx.config.chatBodyLimitBytes,
      handler: async (req, res, principal) => {
        // The client leaving (before the response is complete) aborts the model call at once, or before it
        // starts if a long prompt was still being counted.
        const abort = new CallAbortController();
        res.on('close', () => {
          if (!res.writableFinished) abort.abort(new Error('client closed the connection'));
        });
        const ready = services.chat.prepare(req.body);
        // Not awaited unless it must be: a prompt that was counted at once goes on in this turn.
        const prepared = ready instanceof Promise ? await ready : ready;
        const l = locals(res);
        l.model = prepared.entry.id;
        l.promptTokens = prepared.promptTokens;
        l.completionTokens = 0;
        const call = {
          principal,
          allowance: services.allowance,
          prepared,
          abort,
          onUsage(usage: { model: string; promptTokens: number; completionTokens: number }) {
            l.model = usage.model;
            l.promptTokens = usage.promptTokens;
            l.completionTokens = usage.completionTokens;
          },
        };
        if (prepared.request.stream) await services.chat.stream(call, new SseSink(res));
        else sendJson(res, 200, await services.chat.complete(call));
      },
    },
  ];
}

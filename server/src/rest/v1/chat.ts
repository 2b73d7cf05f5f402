import type { Response } from 'express';
import type { ChatSink } from '../../modules/chat';
import type { Services } from '../../services';
import { toHttpError } from '../errors';
import { locals } from '../middleware/locals';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';

/**
 * Server-Sent Events on an Express response. What is written in one turn of the event loop (the events parsed
 * from one upstream read, or the last chunk, the usage and [DONE]) leaves in one write: a write each cost a
 * system call and a TCP segment per event.
 */
function sseSink(res: Response): ChatSink {
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  const write = (text: string) => {
    if (res.writableEnded || res.destroyed) return;
    if (!corked) {
      corked = true;
      res.cork();
      process.nextTick(uncork);
    }
    res.write(text);
  };
  return {
    open() {
      res.status(200);
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('connection', 'keep-alive');
      // Proxies such as nginx would otherwise buffer the stream.
      res.setHeader('x-accel-buffering', 'no');
      res.flushHeaders();
      res.socket?.setNoDelay(true);
    },
    send(data) {
      write(`data: ${JSON.stringify(data)}\n\n`);
    },
    comment(text) {
      write(`: ${text}\n\n`);
    },
    error(err) {
      const http = toHttpError(err, locals(res).requestId);
      const l = locals(res);
      l.errorType = http.body.error.type;
      l.errorCode = http.body.error.code;
      l.errorMessage = http.body.error.message;
      write(`data: ${JSON.stringify(http.body)}\n\n`);
    },
    done() {
      write('data: [DONE]\n\n');
      if (!res.writableEnded) res.end();
    },
    end() {
      if (!res.writableEnded) res.end();
    },
  };
}

export function chatRoutes(services: Services): RestRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/chat/completions',
      body: true,
      handler: async (req, res, principal) => {
        const prepared = services.chat.prepare(req.body);
        const l = locals(res);
        l.model = prepared.entry.id;
        l.promptTokens = prepared.promptTokens;
        l.completionTokens = 0;
        // The client leaving (before the response is complete) aborts the model call at once.
        const abort = new AbortController();
        res.on('close', () => {
          if (!res.writableFinished) abort.abort(new Error('client closed the connection'));
        });
        const call = {
          principal,
          allowance: services.allowance,
          prepared,
          abort,
          onUsage: (usage: { model: string; promptTokens: number; completionTokens: number }) => {
            l.model = usage.model;
            l.promptTokens = usage.promptTokens;
            l.completionTokens = usage.completionTokens;
          },
        };
        if (prepared.request.stream) await services.chat.stream(call, sseSink(res));
        else sendJson(res, 200, await services.chat.complete(call));
      },
    },
  ];
}

import type { Response } from 'express';
import { locals, recordError, recordUsage } from '../../http/locals';
import { type ResponseEventSink, ResponsesService } from '../../modules/responses';
import type { Services } from '../../services';
import { toHttpError } from '../errors';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';
import { abortOnClientClose, PROVIDER_HEADER } from './model-call';
import { SseSink } from './sse-sink';

/** The response's events as Server-Sent Events on the client's connection (SseSink's batching and backpressure). */
function eventSink(res: Response, stallMs: number): ResponseEventSink {
  const sse = new SseSink(res, stallMs);
  return {
    open: () => sse.open(),
    event: (type, json) => sse.event(type, json),
    ready: () => sse.ready(),
    comment: (text) => sse.comment(text),
    failure(err) {
      const { error } = toHttpError(err, locals(res).requestId).body;
      recordError(res, error);
      return error;
    },
    end: () => sse.end(),
  };
}

/**
 * `POST /v1/responses`, OpenAI's Responses API, answered through the chat service (modules/responses): the same
 * key scope (`chat`), body limit, rate limit, allowance, budgets and metering as a chat completion.
 */
export function responseRoutes(services: Services): RestRoute[] {
  const responses = new ResponsesService(services.chat, services.ctx.clock);
  return [
    {
      method: 'post',
      path: '/v1/responses',
      scope: 'chat',
      body: true,
      bodyLimit: services.ctx.config.chatBodyLimitBytes,
      handler: async (req, res, principal) => {
        const abort = abortOnClientClose(res);
        const prepared = await responses.prepare(req.body, principal);
        // Refused before the model (the allowance, a budget): metered with its model and 0 tokens, as chat's are.
        recordUsage(res, { model: prepared.chat.entry.id, promptTokens: 0, completionTokens: 0 });
        const call = {
          principal,
          allowance: services.allowance,
          spend: services.spend,
          prepared: prepared.chat,
          abort,
          onProvider(name: string) {
            locals(res).provider = name;
            if (!res.headersSent) res.setHeader(PROVIDER_HEADER, name);
          },
        };
        if (prepared.request.stream) {
          const sink = eventSink(res, services.ctx.config.chat.clientStallMs);
          const ended = await responses.stream(prepared, call, sink);
          recordUsage(res, ended.usage);
          if (!ended.ok) throw ended.error;
        } else {
          const ended = await responses.create(prepared, call);
          recordUsage(res, ended.usage);
          if (!ended.ok) throw ended.error;
          sendJson(res, 200, ended.value);
        }
      },
    },
  ];
}

import type { Request, Response } from 'express';
import {
  type AuthenticatedContext,
  type RequestContext,
  type RouteOutcome,
  refusedBeforeModel,
} from '../../http/request-context';
import { type ResponseEventSink, ResponsesService } from '../../modules/responses';
import type { Services } from '../../services';
import { toHttpError } from '../errors';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';
import { abortOnClientClose, PROVIDER_HEADER } from './model-call';
import { SseSink } from './sse-sink';

/** The response's events as Server-Sent Events on the client's connection (SseSink's batching and backpressure). */
function eventSink(res: Response, context: RequestContext, stallMs: number): ResponseEventSink {
  const sse = new SseSink(res, context, stallMs);
  return {
    open: () => sse.open(),
    event: (type, json) => sse.event(type, json),
    ready: () => sse.ready(),
    comment: (text) => sse.comment(text),
    failure(err) {
      // The stream opened with a 200: the request is metered as the error its events report.
      const http = toHttpError(err, context.requestId);
      context.usage.failed(http.body.error);
      context.usage.status = http.status;
      return http.body.error;
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
      handler: (req, res, context) => createResponse(services, responses, req, res, context),
    },
  ];
}

async function createResponse(
  services: Services,
  responses: ResponsesService,
  req: Request,
  res: Response,
  context: AuthenticatedContext,
): Promise<RouteOutcome> {
  const abort = abortOnClientClose(res);
  const prepared = await responses.prepare(req.body, context.principal);
  const call = {
    principal: context.principal,
    allowance: services.allowance,
    spend: services.spend,
    prepared: prepared.chat,
    abort,
    onProvider(name: string) {
      context.usage.provider = name;
      if (!res.headersSent) res.setHeader(PROVIDER_HEADER, name);
    },
  };
  try {
    if (prepared.request.stream) {
      const sink = eventSink(res, context, services.ctx.config.chat.clientStallMs);
      return await responses.stream(prepared, call, sink);
    }
    const ended = await responses.create(prepared, call);
    if (ended.ok) sendJson(res, 200, ended.value);
    return ended;
  } catch (error) {
    // Once the call ran, the chat service answers with an outcome: what is thrown was thrown before any model saw
    // it (the allowance, a budget), and is metered with the model and 0 tokens, as chat's are.
    return refusedBeforeModel(prepared.chat.entry.id, error);
  }
}

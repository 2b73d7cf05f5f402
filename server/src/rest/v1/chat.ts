import type { Request, Response } from 'express';
import { type AuthenticatedContext, type RouteOutcome, refusedBeforeModel } from '../../http/request-context';
import type { CacheTurn } from '../../modules/cache';
import type { ChatCall } from '../../modules/chat';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';
import { sendJson } from '../send-json';
import { answerFromCache, cacheTurnOf } from './chat-cache';
import { abortOnClientClose, PROVIDER_HEADER } from './model-call';
import { SseSink } from './sse-sink';

export function chatRoutes(services: Services): RestRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/chat/completions',
      scope: 'chat',
      body: true,
      bodyLimit: services.ctx.config.chatBodyLimitBytes,
      handler: (req, res, context) => completeChatRequest(services, req, res, context),
    },
  ];
}

/**
 * `POST /v1/chat/completions`: the chat service checks the request (its model, the key's access to it, the
 * prompt) and answers it; the answer is sent here, and the call's outcome, what it consumed however it ended,
 * goes back to the route pipeline, which records it (rest/routes.ts).
 */
async function completeChatRequest(
  services: Services,
  req: Request,
  res: Response,
  context: AuthenticatedContext,
): Promise<RouteOutcome> {
  const abort = abortOnClientClose(res);
  const prepared = await services.chat.prepare(req.body, context.principal);
  const call: ChatCall = {
    principal: context.principal,
    allowance: services.allowance,
    spend: services.spend,
    prepared,
    abort,
    // Set before each attempt: a stream's headers leave once its provider accepted the call, and an error names
    // the provider that failed. Clients that show headers see who answered.
    onProvider(name: string) {
      context.usage.provider = name;
      if (!res.headersSent) res.setHeader(PROVIDER_HEADER, name);
    },
  };
  try {
    // The response cache, for keys that opted in (modules/cache): a hit is answered here.
    const cache = cacheTurnOf(services, req, call);
    const hit = cache && (await answerFromCache(services, res, context, cache, call));
    if (hit) return hit;
    if (prepared.request.stream) return await streamAnswer(services, res, context, call, cache);
    return await jsonAnswer(services, res, context, call, cache);
  } catch (error) {
    // Once the call ran, the service answers with an outcome, and what follows it (storing the answer in the
    // cache, whose store failures are swallowed, and sending it) does not throw: so what is thrown here was
    // thrown before any model saw the call.
    return refusedBeforeModel(prepared.entry.id, error);
  }
}

/** The answer as Server-Sent Events; a cache miss stores it once it is whole. */
async function streamAnswer(
  services: Services,
  res: Response,
  context: AuthenticatedContext,
  call: ChatCall,
  cache: CacheTurn | undefined,
): Promise<RouteOutcome> {
  const sink = new SseSink(res, context, services.ctx.config.chat.clientStallMs);
  const ended = await services.chat.stream(
    call,
    cache ? cache.capture(sink, () => context.usage.provider ?? undefined) : sink,
  );
  await cache?.settle(ended.ok, ended.usage, context.usage.provider ?? '');
  return ended;
}

/** The answer as one JSON completion; a cache miss stores it. */
async function jsonAnswer(
  services: Services,
  res: Response,
  context: AuthenticatedContext,
  call: ChatCall,
  cache: CacheTurn | undefined,
): Promise<RouteOutcome> {
  const ended = await services.chat.complete(call);
  if (ended.ok) {
    await cache?.storeCompletion(ended.value, context.usage.provider ?? '');
    sendJson(res, 200, ended.value);
  }
  return ended;
}

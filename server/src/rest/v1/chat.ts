import { locals, recordUsage } from '../../http/locals';
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
      handler: async (req, res, principal) => {
        const abort = abortOnClientClose(res);
        const prepared = await services.chat.prepare(req.body, principal);
        // A call refused before any model sees it (the allowance's 429, its 503 in an outage) consumed
        // nothing: metered with its model and 0 tokens, so that usage adds up to what the allowance counted.
        // The service's answer replaces this with what the call consumed once it ran.
        recordUsage(res, { model: prepared.entry.id, promptTokens: 0, completionTokens: 0 });
        const call = {
          principal,
          allowance: services.allowance,
          spend: services.spend,
          prepared,
          abort,
          // Set before each attempt: a stream's headers leave once its provider accepted the call, and an
          // error names the provider that failed. Clients that show headers see who answered.
          onProvider(name: string) {
            locals(res).provider = name;
            if (!res.headersSent) res.setHeader(PROVIDER_HEADER, name);
          },
        };
        // The response cache, for keys that opted in (modules/cache): a hit is answered here.
        const cache = cacheTurnOf(services, req, call);
        if (cache && (await answerFromCache(services, res, cache, call))) return;
        // The service answers with what the call consumed, however it ended: recorded, then sent.
        if (prepared.request.stream) {
          const sink = new SseSink(res, services.ctx.config.chat.clientStallMs);
          const ended = await services.chat.stream(
            call,
            cache ? cache.capture(sink, () => locals(res).provider) : sink,
          );
          recordUsage(res, ended.usage);
          await cache?.settle(ended.ok, ended.usage, locals(res).provider ?? '');
          if (!ended.ok) throw ended.error;
        } else {
          const ended = await services.chat.complete(call);
          recordUsage(res, ended.usage);
          if (!ended.ok) throw ended.error;
          await cache?.storeCompletion(ended.value, locals(res).provider ?? '');
          sendJson(res, 200, ended.value);
        }
      },
    },
  ];
}

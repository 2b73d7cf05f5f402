import type { Request, Response } from 'express';
import type { AuthenticatedContext, RouteOutcome } from '../../http/request-context';
import { asChunks, asCompletion, CACHE_HEADER, type CacheTurn } from '../../modules/cache';
import type { ChatCall } from '../../modules/chat';
import type { Services } from '../../services';
import { sendJson } from '../send-json';
import { SseSink } from './sse-sink';

type CachedCall = Pick<ChatCall, 'principal' | 'prepared' | 'onProvider'>;

/**
 * The response cache's part in a chat request (modules/cache, docs/caching.md), or undefined when it has none:
 * the key has no cache (decided without allocating: the common case costs the hot path nothing), or the request
 * said `x-tessera-cache: no-store`. An unknown `x-tessera-cache` value is a 400.
 */
export function cacheTurnOf(services: Services, req: Request, call: CachedCall): CacheTurn | undefined {
  const directive = req.headers[CACHE_HEADER];
  const { principal, prepared } = call;
  if (!principal.access?.cacheTtlSeconds && directive === undefined) return undefined;
  const entry = prepared.entry;
  return services.responseCache.begin(
    principal,
    prepared,
    {
      model: entry.id,
      provider: services.providers.forModel(entry, principal.mode)?.name ?? 'none',
      upstreamModel: entry.upstream_model,
    },
    Array.isArray(directive) ? directive.join(',') : directive,
  );
}

/**
 * The cache's one hook in the chat route: looks the request up and, on a hit, answers it (JSON, or a stream
 * shaped as a live one) and returns its outcome, metered as a hit: no model call, no allowance or budget, 0
 * tokens, cost 0, and the answer's original cost as saved. On a miss it returns nothing; the route calls the
 * model and stores the answer through the turn.
 */
export async function answerFromCache(
  services: Services,
  res: Response,
  context: AuthenticatedContext,
  turn: CacheTurn,
  call: CachedCall,
): Promise<RouteOutcome | undefined> {
  const hit = await turn.lookup();
  const { usage } = context;
  if (!hit) {
    usage.cache = 'miss';
    res.setHeader(CACHE_HEADER, 'miss');
    return undefined;
  }
  usage.cache = 'hit';
  usage.savedMicros = hit.costMicros;
  call.onProvider(hit.provider);
  res.setHeader(CACHE_HEADER, 'hit');
  const created = Math.floor(context.clock.now() / 1000);
  if (!call.prepared.request.stream) {
    sendJson(res, 200, asCompletion(hit, created));
  } else {
    const sink = new SseSink(res, context, services.ctx.config.chat.clientStallMs);
    sink.open();
    const includeUsage = call.prepared.request.stream_options?.include_usage === true;
    for (const chunk of asChunks(hit, created, includeUsage)) sink.send(chunk);
    sink.done();
  }
  return { ok: true, usage: { model: hit.model, promptTokens: 0, completionTokens: 0 } };
}

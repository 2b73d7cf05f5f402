import type { Request, Response } from 'express';
import { locals, recordUsage } from '../../http/locals';
import { asChunks, asCompletion, CACHE_HEADER, type CacheTurn } from '../../modules/cache';
import type { ChatCall } from '../../modules/chat';
import type { Services } from '../../services';
import { sendJson } from '../send-json';
import { SseSink } from './sse-sink';

/**
 * The response cache's one hook in the chat route (modules/cache): for a key that opted in, looks the request up
 * and, on a hit, answers it (JSON, or a stream shaped as a live one) and meters it as a hit: no model call, no
 * allowance or budget, 0 tokens, cost 0, and the answer's original cost as saved. Returns the turn that stores
 * the answer on a miss; `'answered'` after a hit; undefined when the cache has no part in the request.
 */
export async function answerFromCache(
  services: Services,
  req: Request,
  res: Response,
  call: Pick<ChatCall, 'principal' | 'prepared' | 'onProvider'>,
): Promise<CacheTurn | 'answered' | undefined> {
  const { principal, prepared } = call;
  const entry = prepared.entry;
  const turn = services.responseCache.begin(
    principal,
    prepared,
    {
      model: entry.id,
      provider: services.providers.forModel(entry, principal.mode)?.name ?? 'none',
      upstreamModel: entry.upstream_model,
    },
    req.get(CACHE_HEADER),
  );
  if (!turn) return undefined;
  const hit = await turn.lookup();
  const l = locals(res);
  if (!hit) {
    l.cache = 'miss';
    res.setHeader(CACHE_HEADER, 'miss');
    return turn;
  }
  l.cache = 'hit';
  l.savedMicros = hit.costMicros;
  call.onProvider(hit.provider);
  recordUsage(res, { model: hit.model, promptTokens: 0, completionTokens: 0 });
  res.setHeader(CACHE_HEADER, 'hit');
  const created = Math.floor(services.ctx.clock.now() / 1000);
  if (!prepared.request.stream) {
    sendJson(res, 200, asCompletion(hit, created));
    return 'answered';
  }
  const sink = new SseSink(res, services.ctx.config.chat.clientStallMs);
  sink.open();
  const includeUsage = prepared.request.stream_options?.include_usage === true;
  for (const chunk of asChunks(hit, created, includeUsage)) sink.send(chunk);
  sink.done();
  return 'answered';
}

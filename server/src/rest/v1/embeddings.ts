import type { Request, Response } from 'express';
import { type AuthenticatedContext, type RouteOutcome, refusedBeforeModel } from '../../http/request-context';
import type { EmbeddingOutcome } from '../../modules/embeddings';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';
import { sendJson, sendJsonList } from '../send-json';
import { abortOnClientClose, PROVIDER_HEADER } from './model-call';

/** Answers of more vector components than this (about 1 MB of JSON) are written a piece at a time. */
const LARGE_ANSWER_COMPONENTS = 65_536;

export function embeddingRoutes(services: Services): RestRoute[] {
  return [
    {
      method: 'post',
      path: '/v1/embeddings',
      scope: 'embeddings',
      body: true,
      bodyLimit: services.ctx.config.embeddingsBodyLimitBytes,
      handler: (req, res, context) => createEmbeddings(services, req, res, context),
    },
  ];
}

async function createEmbeddings(
  services: Services,
  req: Request,
  res: Response,
  context: AuthenticatedContext,
): Promise<RouteOutcome> {
  const abort = abortOnClientClose(res);
  const prepared = await services.embeddings.prepare(req.body, context.principal);
  let ended: EmbeddingOutcome;
  try {
    if (abort.signal.aborted) throw abort.signal.reason;
    ended = await services.embeddings.embed({
      principal: context.principal,
      allowance: services.allowance,
      spend: services.spend,
      prepared,
      abort,
      onProvider(name: string) {
        res.setHeader(PROVIDER_HEADER, name);
      },
    });
  } catch (error) {
    // Refused before the model (no provider, the allowance, a budget): metered with its model and 0 tokens.
    return refusedBeforeModel(prepared.entry.id, error);
  }
  if (!ended.ok) return ended;
  const { data, ...rest } = ended.value;
  // Small answers in one write with their length; long lists of vectors a piece a turn.
  if (prepared.inputs.length * prepared.dimensions <= LARGE_ANSWER_COMPONENTS)
    sendJson(res, 200, ended.value);
  else {
    try {
      await sendJsonList(res, 200, 'data', data, rest);
    } catch (error) {
      return { ok: false, error, usage: ended.usage };
    }
  }
  return ended;
}

import { recordUsage } from '../../http/locals';
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
      handler: async (req, res, principal) => {
        const abort = abortOnClientClose(res);
        const prepared = await services.embeddings.prepare(req.body, principal);
        // Refused before the model (the allowance): metered with its model and 0 tokens, as chat's are.
        recordUsage(res, { model: prepared.entry.id, promptTokens: 0, completionTokens: 0 });
        if (abort.signal.aborted) throw abort.signal.reason;
        const ended = await services.embeddings.embed({
          principal,
          allowance: services.allowance,
          spend: services.spend,
          prepared,
          abort,
          onProvider(name: string) {
            res.setHeader(PROVIDER_HEADER, name);
          },
        });
        recordUsage(res, ended.usage);
        if (!ended.ok) throw ended.error;
        const { data, ...rest } = ended.value;
        // Small answers in one write with their length; long lists of vectors a piece a turn.
        if (prepared.inputs.length * prepared.dimensions <= LARGE_ANSWER_COMPONENTS)
          sendJson(res, 200, ended.value);
        else await sendJsonList(res, 200, 'data', data, rest);
      },
    },
  ];
}

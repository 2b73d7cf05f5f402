import { SearchRequest } from '@tessera/shared';
import { parseOrThrow, searchDocuments } from '../../modules/search';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';

export function searchRoutes(services: Services): RestRoute[] {
  const { ctx } = services;
  return [
    {
      method: 'post',
      path: '/api/search',
      scope: 'search_read',
      body: true,
      handler: async (req, res, { principal }) => {
        const input = parseOrThrow(SearchRequest, req.body ?? {});
        res.json(
          await services.searchGate.run(principal.accountId, () =>
            searchDocuments({
              ctx,
              accountId: principal.accountId,
              input,
              options: {
                topKMinMatches: ctx.config.searchLimits.topKMinMatches,
                statementTimeoutMs: ctx.config.searchLimits.statementTimeoutMs,
                exactMaxMatches: ctx.config.searchLimits.exactMaxMatches,
                memory: services.searchMemory,
                database: services.database.kind,
              },
            }),
          ),
        );
      },
    },
  ];
}

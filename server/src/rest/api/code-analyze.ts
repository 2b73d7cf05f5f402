import type { Services } from '../../services';
import type { RestRoute } from '../routes';

export function codeAnalyzeRoutes(services: Services): RestRoute[] {
  const { codeAnalyzer } = services;
  return [
    {
      method: 'post',
      path: '/api/code/analyze',
      scope: 'code_analysis',
      body: true,
      handler: async (req, res, { principal }) => {
        res.json(await codeAnalyzer.analyze(req.body, principal.accountId));
      },
    },
  ];
}

import { getModel, listModels } from '../../modules/models';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';

export function modelRoutes(services: Services): RestRoute[] {
  const { catalogue, ownership } = services;
  return [
    {
      method: 'get',
      path: '/v1/models',
      scope: 'models',
      handler: (_req, res, { principal }) => {
        res.json(listModels({ catalogue, ownership, allowed: principal.access?.models }));
      },
    },
    {
      method: 'get',
      path: '/v1/models/:id',
      scope: 'models',
      handler: (req, res, { principal }) => {
        // Express has already percent-decoded the parameter (`a%2Fb` arrives as `a/b`).
        res.json(getModel({ catalogue, ownership, principal, id: String(req.params.id) }));
      },
    },
  ];
}

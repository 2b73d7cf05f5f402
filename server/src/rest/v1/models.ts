import { getModel, listModels } from '../../modules/models';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';

export function modelRoutes(services: Services): RestRoute[] {
  const { catalogue, ownership } = services;
  return [
    {
      method: 'get',
      path: '/v1/models',
      handler: (_req, res) => {
        res.json(listModels({ catalogue, ownership }));
      },
    },
    {
      method: 'get',
      path: '/v1/models/:id',
      handler: (req, res) => {
        // Express has already percent-decoded the parameter (`a%2Fb` arrives as `a/b`).
        res.json(getModel({ catalogue, ownership, id: String(req.params.id) }));
      },
    },
  ];
}

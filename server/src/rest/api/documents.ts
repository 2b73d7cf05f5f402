import { CollectionConfig } from '@tessera/shared';
import type { Request } from 'express';
import { z } from 'zod';
import {
  configureCollection,
  deleteCollection,
  deleteDocument,
  getCollection,
  getDocument,
  indexDocuments,
  listDocuments,
  parseCollectionName,
  parseDocumentId,
  parseIndexRequest,
  parseOrThrow,
} from '../../modules/search';
import type { Services } from '../../services';
import type { RestRoute } from '../routes';

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(2000).optional(),
});

function collectionOf(req: Request): string {
  return parseCollectionName(req.query.collection, 'default');
}

/** Indexing under /api/documents; every call is scoped to the key's account. */
export function documentRoutes(services: Services): RestRoute[] {
  const { ctx } = services;
  return [
    {
      method: 'post',
      path: '/api/documents',
      scope: 'search_write',
      body: true,
      handler: async (req, res, { principal }) => {
        const { collection, documents } = parseIndexRequest(req.body, ctx.config.searchLimits);
        const scope = { accountId: principal.accountId, collection };
        res.json(
          await services.searchGate.run(principal.accountId, () =>
            indexDocuments({ ctx, scope, documents, merges: services.searchMaintenance }),
          ),
        );
      },
    },
    {
      method: 'get',
      path: '/api/documents',
      scope: 'search_read',
      handler: async (req, res, { principal }) => {
        const { limit, cursor } = parseOrThrow(ListQuery, req.query);
        const scope = { accountId: principal.accountId, collection: collectionOf(req) };
        res.json(await listDocuments({ ctx, scope, limit, cursor }));
      },
    },
    {
      method: 'get',
      path: '/api/documents/:id',
      scope: 'search_read',
      handler: async (req, res, { principal }) => {
        const scope = { accountId: principal.accountId, collection: collectionOf(req) };
        res.json(await getDocument({ ctx, scope, id: parseDocumentId(req.params.id) }));
      },
    },
    {
      method: 'delete',
      path: '/api/documents/:id',
      scope: 'search_write',
      handler: async (req, res, { principal }) => {
        const scope = { accountId: principal.accountId, collection: collectionOf(req) };
        const id = parseDocumentId(req.params.id);
        await deleteDocument({ ctx, scope, id });
        res.json({ object: 'document', id, deleted: true });
      },
    },
    {
      method: 'get',
      path: '/api/documents/collections/:collection',
      scope: 'search_read',
      handler: async (req, res, { principal }) => {
        const collection = parseCollectionName(req.params.collection);
        res.json(await getCollection({ ctx, scope: { accountId: principal.accountId, collection } }));
      },
    },
    {
      method: 'put',
      path: '/api/documents/collections/:collection',
      scope: 'search_write',
      body: true,
      handler: async (req, res, { principal }) => {
        const collection = parseCollectionName(req.params.collection);
        const { language } = parseOrThrow(CollectionConfig, req.body ?? {});
        const scope = { accountId: principal.accountId, collection };
        res.json(await configureCollection({ ctx, scope, language }));
      },
    },
    {
      method: 'delete',
      path: '/api/documents/collections/:collection',
      scope: 'search_write',
      handler: async (req, res, { principal }) => {
        const collection = parseCollectionName(req.params.collection);
        await deleteCollection({ ctx, scope: { accountId: principal.accountId, collection } });
        res.json({ object: 'collection', id: collection, deleted: true });
      },
    },
  ];
}

import { ErrorBody, ModelList, ModelObject } from '@tessera/shared';
import type { ZodType } from 'zod';

/** One documented REST operation; its schemas are the same zod schemas the server validates with. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  pathParams?: Record<string, string>;
  request?: { name: string; schema: ZodType };
  response: { name: string; schema: ZodType; description: string; stream?: string };
  /** Error statuses beyond the ones every authenticated endpoint has (400, 401, 429, 500). */
  errors?: number[];
}

export const ERROR_SCHEMA = { name: 'ErrorBody', schema: ErrorBody };

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/v1/models',
    tag: 'Models',
    summary: 'List models',
    description: 'The model catalogue: each model with its context window and what it is best for.',
    response: { name: 'ModelList', schema: ModelList, description: 'The models.' },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    tag: 'Models',
    summary: 'Retrieve a model',
    pathParams: { id: 'The model id (percent-encoded if it contains reserved characters).' },
    response: { name: 'Model', schema: ModelObject, description: 'The model.' },
    errors: [404],
  },
];

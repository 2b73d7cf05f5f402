import { z } from 'zod';
import { ERROR_SCHEMA, OPERATIONS, type Operation } from './operations';

type JsonObject = Record<string, unknown>;

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid parameters or JSON.',
  401: 'Missing, malformed, unknown or revoked API key, or one past its expiry (`expired_api_key`).',
  403: 'The key is limited to other endpoints or models (`permission_denied`, naming the scope or model).',
  404: 'Unknown model, document or route.',
  413: 'Request body too large.',
  415: 'Content type is not application/json.',
  429: "Rate limit reached or token allowance exhausted: the plan's (`rate_limit_exceeded`, `insufficient_quota`) or the key's own (`key_rate_limit_exceeded`, `key_budget_exceeded`).",
  500: 'Internal error or model timeout (`model_timeout`).',
};

/** JSON Schema of a zod schema, as OpenAPI 3.1 accepts it (refs under components/schemas). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonObject;
  delete out.$schema;
  return out;
}

function operationObject(op: Operation, schemas: Record<string, JsonObject>): JsonObject {
  schemas[op.response.name] = jsonSchema(op.response.schema, 'output');
  if (op.request) schemas[op.request.name] = jsonSchema(op.request.schema, 'input');
  const errorRef = { $ref: `#/components/schemas/${ERROR_SCHEMA.name}` };
  const statuses = [
    ...new Set([400, 401, 403, 429, 500, ...(op.errors ?? []), ...(op.request ? [413, 415] : [])]),
  ].sort();
  const responses: JsonObject = {
    200: {
      description: op.response.description,
      content: {
        'application/json': { schema: { $ref: `#/components/schemas/${op.response.name}` } },
        ...(op.response.stream && {
          'text/event-stream': { schema: { type: 'string', description: op.response.stream } },
        }),
      },
    },
  };
  for (const status of statuses) {
    responses[status] = {
      description: STANDARD_ERRORS[status] ?? 'Error.',
      content: { 'application/json': { schema: errorRef } },
    };
  }
  return {
    summary: op.summary,
    ...(op.description && { description: op.description }),
    tags: [op.tag],
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    security: [{ bearerAuth: [] }],
    ...((op.pathParams || op.queryParams) && {
      parameters: [
        ...Object.entries(op.pathParams ?? {}).map(([name, description]) => ({
          name,
          in: 'path',
          required: true,
          description,
          schema: { type: 'string' },
        })),
        ...Object.entries(op.queryParams ?? {}).map(([name, description]) => ({
          name,
          in: 'query',
          required: false,
          description,
          schema: { type: 'string' },
        })),
      ],
    }),
    ...(op.request && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.request.name}` } } },
      },
    }),
    responses,
  };
}

/** The OpenAPI 3.1 document of the public REST API, built from the zod schemas in `shared/`. */
export function buildOpenApiDocument(operations: Operation[] = OPERATIONS): JsonObject {
  const schemas: Record<string, JsonObject> = {
    [ERROR_SCHEMA.name]: jsonSchema(ERROR_SCHEMA.schema, 'output'),
  };
  const paths: Record<string, JsonObject> = {};
  for (const op of operations) {
    paths[op.path] = { ...paths[op.path], [op.method]: operationObject(op, schemas) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera API',
      version: '1.0.0',
      description:
        'AI features behind API keys. Authenticate with `Authorization: Bearer sk_live_…` or `sk_test_…`. Every error has OpenAI\'s body `{"error":{"message","type","param","code"}}`.',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
  };
}

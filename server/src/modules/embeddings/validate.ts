import { EmbeddingRequest, MAX_EMBEDDING_INPUTS } from '@tessera/shared';
import { z } from 'zod';
import { ServiceError } from '../../errors';
import { describeValue as describe, invalidParameter } from '../../lib/invalid-parameter';

/** A request that parsed, with its inputs one an item (text, or token ids). */
export interface ParsedEmbeddings {
  request: EmbeddingRequest;
  inputs: (string | number[])[];
}

const TOKEN_ID = 'a non-negative integer (a token id)';
const COMMON: Record<string, string> = {
  model: 'a non-empty string naming an embedding model',
  input: `a non-empty string, or an array of 1 to ${MAX_EMBEDDING_INPUTS} non-empty strings, token ids or arrays of token ids`,
  encoding_format: "'float' or 'base64'",
  dimensions: 'a positive integer',
  user: 'a string',
};

const TokenIds = z.array(z.number().int().nonnegative()).min(1);

/**
 * The four shapes OpenAI takes `input` in, each checked on its own so that a problem is named where it is
 * (`input[3]`, `input[2][7]`) rather than as "matches none of four shapes". The shape is told by the first item.
 */
const SHAPES = {
  text: {
    schema: EmbeddingRequest.extend({ input: z.string().min(1) }),
    expected: { ...COMMON, input: 'a non-empty string' },
  },
  texts: {
    schema: EmbeddingRequest.extend({ input: z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS) }),
    expected: { ...COMMON, 'input.*': 'a non-empty string (every item of an array of strings)' },
  },
  tokens: {
    schema: EmbeddingRequest.extend({ input: TokenIds }),
    expected: { ...COMMON, 'input.*': `${TOKEN_ID} (every item of an array of token ids)` },
  },
  tokenArrays: {
    schema: EmbeddingRequest.extend({ input: z.array(TokenIds).min(1).max(MAX_EMBEDDING_INPUTS) }),
    expected: {
      ...COMMON,
      'input.*': 'a non-empty array of token ids (every item of an array of token arrays)',
      'input.*.*': TOKEN_ID,
    },
  },
} as const;

function shapeOf(input: unknown): (typeof SHAPES)[keyof typeof SHAPES] | undefined {
  // No input: any shape says it is missing.
  if (typeof input === 'string' || input === undefined) return SHAPES.text;
  if (!Array.isArray(input) || input.length === 0) return undefined;
  const first: unknown = input[0];
  if (typeof first === 'string') return SHAPES.texts;
  if (typeof first === 'number') return SHAPES.tokens;
  if (Array.isArray(first)) return SHAPES.tokenArrays;
  return undefined;
}

const PARSE_CONTEXT = { reportInput: true };
const NULL_MEANS_ABSENT = ['encoding_format', 'dimensions', 'user'] as const;

/** Parses an embeddings request as OpenAI does; unknown fields are kept (an upstream may know them). */
export function parseEmbeddingRequest(body: unknown): ParsedEmbeddings {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      `The request body must be a JSON object with 'model' and 'input'; received ${describe(body)}.`,
      { code: 'invalid_request_body' },
    );
  }
  const input = (body as { input?: unknown }).input;
  const shape = shapeOf(input);
  // An input of no known shape: the other fields first (a missing model is the first problem), then it.
  const schema = shape?.schema ?? EmbeddingRequest;
  const result = schema.safeParse(body, PARSE_CONTEXT);
  const issue = result.error?.issues[0];
  if (issue) throw invalidParameter(issue, { expected: shape?.expected ?? COMMON });
  if (!result.success) throw new ServiceError('invalid_request', 'The request is invalid.');
  const request = result.data as EmbeddingRequest;
  // null is "not given" (as clients that fill every field send it), and upstreams refuse null for these.
  for (const field of NULL_MEANS_ABSENT) if (request[field] === null) delete request[field];
  const parsed = request.input;
  const inputs: (string | number[])[] =
    typeof parsed === 'string' || typeof parsed[0] === 'number'
      ? [parsed as string | number[]]
      : (parsed as (string | number[])[]);
  return { request, inputs };
}

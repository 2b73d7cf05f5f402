import { z } from 'zod';

/** At most this many inputs in one request (OpenAI's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;
/** At most this many tokens across all the inputs of one request (OpenAI's limit for every embedding model). */
export const MAX_EMBEDDING_REQUEST_TOKENS = 300_000;

const TokenIds = z.array(z.number().int().nonnegative()).min(1);

/**
 * What to embed, as OpenAI takes it: a string, an array of strings, an array of token ids (one input), or an
 * array of token-id arrays. Strings are never empty. Each input fits the model's `context_window` in tokens;
 * all together at most MAX_EMBEDDING_REQUEST_TOKENS.
 */
export const EmbeddingInput = z.union([
  z.string().min(1),
  z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
  TokenIds,
  z.array(TokenIds).min(1).max(MAX_EMBEDDING_INPUTS),
]);
export type EmbeddingInput = z.infer<typeof EmbeddingInput>;

export const EncodingFormat = z.enum(['float', 'base64']);
export type EncodingFormat = z.infer<typeof EncodingFormat>;

/**
 * `POST /v1/embeddings`: OpenAI's CreateEmbeddingRequest. Unknown fields are kept and relayed upstream; an
 * optional field sent as null means it was left out (and is not relayed).
 */
export const EmbeddingRequest = z.looseObject({
  model: z.string().min(1),
  input: EmbeddingInput,
  /** `base64`: each vector as the base64 of its little-endian float32s (what the openai SDKs ask for). */
  encoding_format: EncodingFormat.nullish(),
  /** Fewer dimensions than the model's own, for models that allow it (the catalogue's `accepts_dimensions`). */
  dimensions: z.number().int().positive().nullish(),
  user: z.string().nullish(),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequest>;

export const EmbeddingObject = z.object({
  object: z.literal('embedding'),
  index: z.number().int().nonnegative(),
  /** Floats, or with `encoding_format: "base64"` the base64 of their float32 bytes (little-endian). */
  embedding: z.union([z.array(z.number()), z.string()]),
});
export type EmbeddingObject = z.infer<typeof EmbeddingObject>;

export const EmbeddingUsage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type EmbeddingUsage = z.infer<typeof EmbeddingUsage>;

/** OpenAI's CreateEmbeddingResponse. */
export const EmbeddingList = z.object({
  object: z.literal('list'),
  data: z.array(EmbeddingObject),
  model: z.string(),
  usage: EmbeddingUsage,
});
export type EmbeddingList = z.infer<typeof EmbeddingList>;

import { z } from 'zod';

const ModelBase = {
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  /** A chat model's largest prompt plus completion; an embedding model's longest input. In tokens. */
  context_window: z.number().int().positive(),
  description: z.string(),
};

/** A model of `POST /v1/chat/completions`. */
export const ChatModelObject = z.object({
  ...ModelBase,
  type: z.literal('chat'),
  max_output_tokens: z.number().int().positive(),
});
export type ChatModelObject = z.infer<typeof ChatModelObject>;

/** A model of `POST /v1/embeddings`: its vectors' length, and whether `dimensions` may ask for fewer. */
export const EmbeddingModelObject = z.object({
  ...ModelBase,
  type: z.literal('embedding'),
  dimensions: z.number().int().positive(),
  accepts_dimensions: z.boolean(),
});
export type EmbeddingModelObject = z.infer<typeof EmbeddingModelObject>;

/** One entry of `GET /v1/models`: OpenAI's `Model` plus what the model is for and its limits. */
export const ModelObject = z.discriminatedUnion('type', [ChatModelObject, EmbeddingModelObject]);
export type ModelObject = z.infer<typeof ModelObject>;

export const ModelList = z.object({ object: z.literal('list'), data: z.array(ModelObject) });
export type ModelList = z.infer<typeof ModelList>;

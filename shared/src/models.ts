import { z } from 'zod';

/** One entry of `GET /v1/models`: OpenAI's `Model` plus our context window and description. */
export const ModelObject = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  context_window: z.number().int().positive(),
  max_output_tokens: z.number().int().positive(),
  description: z.string(),
});
export type ModelObject = z.infer<typeof ModelObject>;

export const ModelList = z.object({ object: z.literal('list'), data: z.array(ModelObject) });
export type ModelList = z.infer<typeof ModelList>;

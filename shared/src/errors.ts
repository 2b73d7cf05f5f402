import { z } from 'zod';

/** OpenAI's error body; all four keys are always present. */
export const ErrorBody = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

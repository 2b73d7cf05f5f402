import { z } from 'zod';

/**
 * `POST /v1/responses`: the part of OpenAI's Responses API (CreateResponse) that Tessera serves by translating it
 * to a chat completion. Parameters outside this schema are refused by name (a 400), so that a client never
 * believes a feature applied that did not; hosted tools, stored responses and conversations are refused with
 * their own message (server/src/modules/responses/README.md).
 */

/** At most this many metadata pairs, keys and values at most these lengths (OpenAI's limits). */
export const MAX_METADATA_PAIRS = 16;
export const MAX_METADATA_KEY = 64;
export const MAX_METADATA_VALUE = 512;

export const InputTextPart = z.object({ type: z.literal('input_text'), text: z.string() });
export const InputImagePart = z.object({
  type: z.literal('input_image'),
  image_url: z.string().min(1).nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(['low', 'high', 'auto']).nullish(),
});
/** What an assistant message given back as input holds: its text (annotations and log probabilities are ignored). */
export const OutputTextPart = z.looseObject({ type: z.literal('output_text'), text: z.string() });
export const RefusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() });
export const InputContentPart = z.discriminatedUnion('type', [
  InputTextPart,
  InputImagePart,
  OutputTextPart,
  RefusalPart,
]);
export type InputContentPart = z.infer<typeof InputContentPart>;

/** A message: EasyInputMessage (`type` may be left out) or InputMessage. */
export const InputMessageItem = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(InputContentPart).min(1)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
  phase: z.string().nullish(),
});
export type InputMessageItem = z.infer<typeof InputMessageItem>;

/** A function call the model made earlier, given back with its result (the next item). */
export const FunctionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().nullish(),
  status: z.string().nullish(),
});
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;

/** A function call's result: a string, or text parts (joined). */
export const FunctionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1).max(64),
  output: z.union([z.string(), z.array(InputTextPart)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
});
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;

/**
 * A reasoning item given back (as OpenAI's clients replay them): accepted and left out of the conversation, since
 * no chat provider takes another model's reasoning back.
 */
export const ReasoningInputItem = z.looseObject({ type: z.literal('reasoning') });

export const ResponseInputItem = z.union([
  InputMessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningInputItem,
]);
export type ResponseInputItem = z.infer<typeof ResponseInputItem>;

export const ResponseFunctionTool = z.object({
  type: z.literal('function'),
  name: z.string().min(1).max(64),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export type ResponseFunctionTool = z.infer<typeof ResponseFunctionTool>;

export const ResponseToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), name: z.string().min(1) }),
]);
export type ResponseToolChoice = z.infer<typeof ResponseToolChoice>;

export const ResponseTextFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1).max(64),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);
export type ResponseTextFormat = z.infer<typeof ResponseTextFormat>;

export const ResponseMetadata = z
  .record(z.string().max(MAX_METADATA_KEY), z.string().max(MAX_METADATA_VALUE))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_PAIRS, {
    message: `at most ${MAX_METADATA_PAIRS} key-value pairs`,
  });

export const ResponseReasoning = z.object({
  effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
  summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
});

export const ResponseRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(ResponseInputItem).min(1)]),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(ResponseFunctionTool).nullish(),
  tool_choice: ResponseToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.object({ format: ResponseTextFormat.nullish(), verbosity: z.string().nullish() }).nullish(),
  reasoning: ResponseReasoning.nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_obfuscation: z.boolean().optional() }).nullish(),
  metadata: ResponseMetadata.nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  service_tier: z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullish(),
  /** Nothing is stored: only `false` (or nothing) is accepted. */
  store: z.literal(false).nullish(),
  /** Only `false`: every response is answered while the request waits. */
  background: z.literal(false).nullish(),
  /** Accepted: nothing is ever truncated (the context window is checked, 400 when over it). */
  truncation: z.enum(['auto', 'disabled']).nullish(),
  /** Accepted and ignored: Tessera adds no hosted tools' results or encrypted reasoning to answers. */
  include: z.array(z.string()).nullish(),
  previous_response_id: z.null().optional(),
  conversation: z.null().optional(),
});
export type ResponseRequest = z.infer<typeof ResponseRequest>;

const tokens = z.number().int().nonnegative();

export const ResponseUsage = z.object({
  input_tokens: tokens,
  input_tokens_details: z.object({ cached_tokens: tokens, cache_write_tokens: tokens }),
  output_tokens: tokens,
  output_tokens_details: z.object({ reasoning_tokens: tokens }),
  total_tokens: tokens,
});
export type ResponseUsage = z.infer<typeof ResponseUsage>;

export const OutputText = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()),
});
export type OutputText = z.infer<typeof OutputText>;

export const OutputRefusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
export type OutputRefusal = z.infer<typeof OutputRefusal>;

const ItemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

export const OutputMessage = z.object({
  id: z.string(),
  type: z.literal('message'),
  status: ItemStatus,
  role: z.literal('assistant'),
  content: z.array(z.union([OutputText, OutputRefusal])),
});
export type OutputMessage = z.infer<typeof OutputMessage>;

export const OutputFunctionCall = z.object({
  id: z.string(),
  type: z.literal('function_call'),
  status: ItemStatus,
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type OutputFunctionCall = z.infer<typeof OutputFunctionCall>;

/** The model's visible reasoning, from upstreams that give it (`reasoning_content` in chat terms). */
export const OutputReasoning = z.object({
  id: z.string(),
  type: z.literal('reasoning'),
  status: ItemStatus,
  summary: z.array(z.unknown()),
  content: z.array(z.object({ type: z.literal('reasoning_text'), text: z.string() })),
});
export type OutputReasoning = z.infer<typeof OutputReasoning>;

export const OutputItem = z.union([OutputMessage, OutputFunctionCall, OutputReasoning]);
export type OutputItem = z.infer<typeof OutputItem>;

/** OpenAI's Response object, as Tessera answers it (every field the spec requires). */
export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'failed', 'in_progress', 'incomplete']),
  completed_at: z.number().int().nullable(),
  background: z.literal(false),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.object({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  model: z.string(),
  output: z.array(OutputItem),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.null(),
  reasoning: z.object({ effort: z.string().nullable(), summary: z.string().nullable() }),
  store: z.literal(false),
  temperature: z.number(),
  text: z.object({ format: z.record(z.string(), z.unknown()) }),
  tool_choice: z.union([z.string(), z.record(z.string(), z.unknown())]),
  tools: z.array(z.record(z.string(), z.unknown())),
  top_p: z.number(),
  truncation: z.literal('disabled'),
  /** Left out until the response is finished (the stream's `response.created` and `response.in_progress`). */
  usage: ResponseUsage.optional(),
  /** The request's `user`, when it gave one. */
  user: z.string().optional(),
  metadata: z.record(z.string(), z.string()),
});
export type ResponseObject = z.infer<typeof ResponseObject>;

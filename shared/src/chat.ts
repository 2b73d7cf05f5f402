import { z } from 'zod';

/** A part of a message's content: text is read by the tokenizer; other kinds (images, audio, files) pass through. */
export const ChatContentPart = z.looseObject({ type: z.string().min(1), text: z.string().optional() });
export type ChatContentPart = z.infer<typeof ChatContentPart>;

export const ChatContent = z.union([z.string(), z.array(ChatContentPart).min(1)]);
export type ChatContent = z.infer<typeof ChatContent>;

export const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** `function` is the deprecated function-calling API's role for a function's result (Tessera translates it). */
export const ChatRole = z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
export type ChatRole = z.infer<typeof ChatRole>;

export const ChatMessage = z
  .looseObject({
    role: ChatRole,
    // Assistant messages that only carry tool calls have no content.
    content: ChatContent.nullable().optional(),
    name: z.string().optional(),
    tool_calls: z.array(ToolCall).optional(),
    tool_call_id: z.string().optional(),
    /** The deprecated function-calling API's call, on an assistant message. */
    function_call: z.object({ name: z.string(), arguments: z.string() }).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.role === 'function' && m.name === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'required on function messages',
        input: undefined,
      });
    }
    if (m.role === 'tool' && m.tool_call_id === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool_call_id'],
        message: 'required on tool messages',
        input: undefined,
      });
    }
    if (m.role !== 'assistant' && m.role !== 'function' && (m.content === null || m.content === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'required', input: m.content });
    }
  });
export type ChatMessage = z.infer<typeof ChatMessage>;

/** Our cap on `n`: each choice is a full generation. */
export const MAX_CHOICES = 8;

const penalty = z.number().min(-2).max(2);

/**
 * `CreateChatCompletionRequest`. Fields we do not check are accepted and kept, not refused: an OpenAI-compatible
 * upstream gets them (OpenAI's `logprobs`, `parallel_tool_calls`…); the other providers ignore them.
 */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.number().int().min(1).max(MAX_CHOICES).nullish(),
  stop: z.union([z.string(), z.array(z.string()).min(1).max(4)]).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  presence_penalty: penalty.nullish(),
  frequency_penalty: penalty.nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  response_format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).nullish(),
  seed: z.number().int().nullish(),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() }))
    .nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).nullish(),
  /** The deprecated function-calling API (`tools` and `tool_choice` before them); Tessera translates it. */
  functions: z
    .array(z.looseObject({ name: z.string().min(1) }))
    .min(1)
    .max(128)
    .nullish(),
  function_call: z.union([z.enum(['none', 'auto']), z.looseObject({ name: z.string() })]).nullish(),
  user: z.string().nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

export const FinishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
export type FinishReason = z.infer<typeof FinishReason>;

const tokenCount = z.number().int().nonnegative();

/**
 * Token counts. The breakdowns are relayed when the upstream reports them: `cached_tokens` (prompt tokens read
 * from the provider's prompt cache), `reasoning_tokens` (hidden reasoning, billed as completion tokens)…
 */
export const Usage = z.object({
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  total_tokens: tokenCount,
  prompt_tokens_details: z.looseObject({ cached_tokens: tokenCount.optional() }).optional(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: tokenCount.optional() }).optional(),
});
export type Usage = z.infer<typeof Usage>;

export const AssistantMessage = z.object({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  refusal: z.string().nullable(),
  tool_calls: z.array(ToolCall).optional(),
  /** The call of a function, when the request used the deprecated `functions` rather than `tools`. */
  function_call: z.object({ name: z.string(), arguments: z.string() }).optional(),
  /** The model's visible reasoning, from upstreams that give it (DeepSeek, vLLM's reasoning parsers); not OpenAI's. */
  reasoning_content: z.string().optional(),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

/** One token's log probability, as `logprobs: true` asks an upstream for it. */
const TokenLogprob = z.looseObject({ token: z.string(), logprob: z.number() });
/** A choice's log probabilities, relayed from an upstream that reported them; null otherwise. */
export const ChoiceLogprobs = z.looseObject({
  content: z.array(TokenLogprob).nullable(),
  refusal: z.array(TokenLogprob).nullable().optional(),
});
export type ChoiceLogprobs = z.infer<typeof ChoiceLogprobs>;

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: AssistantMessage,
      logprobs: ChoiceLogprobs.nullable(),
      finish_reason: FinishReason,
    }),
  ),
  usage: Usage,
  /** The backend configuration that answered: an upstream's as it sent it, `tessera-sim-…` for the simulator. */
  system_fingerprint: z.string().nullable().optional(),
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

export const ChunkDelta = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().nullable().optional(),
  refusal: z.string().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_calls: z.array(z.looseObject({ index: z.number().int() })).optional(),
  function_call: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});
export type ChunkDelta = z.infer<typeof ChunkDelta>;

export const ChunkChoice = z.object({
  index: z.number().int(),
  delta: ChunkDelta,
  logprobs: ChoiceLogprobs.nullable(),
  finish_reason: FinishReason.nullable(),
});
export type ChunkChoice = z.infer<typeof ChunkChoice>;

export const ChatCompletionChunk = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  system_fingerprint: z.string().nullable().optional(),
  choices: z.array(ChunkChoice),
  usage: Usage.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

import { ChatCompletionRequest, MAX_CHOICES } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { describeValue as describe, invalidParameter } from '../../lib/invalid-parameter';

/** What each parameter must be, in words, for messages that say "expected X, received Y". */
const EXPECTED: Record<string, string> = {
  model: 'a non-empty string naming a model',
  messages: 'a non-empty array of messages',
  'messages.*': 'a message object with a role and content',
  'messages.*.role':
    "one of 'system', 'developer', 'user', 'assistant', 'tool' (or the deprecated 'function')",
  'messages.*.content': 'a string or a non-empty array of content parts',
  'messages.*.name': 'a string',
  'messages.*.tool_call_id': 'the id of the tool call this tool message answers',
  'messages.*.function_call': 'an object with the name and arguments of the function called',
  temperature: 'a number between 0 and 2',
  top_p: 'a number between 0 and 1',
  n: `an integer between 1 and ${MAX_CHOICES} (Tessera's cap on choices per request)`,
  stop: 'a string or an array of 1 to 4 strings',
  max_tokens: 'a positive integer',
  max_completion_tokens: 'a positive integer',
  presence_penalty: 'a number between -2 and 2',
  frequency_penalty: 'a number between -2 and 2',
  stream: 'a boolean',
  stream_options: 'an object such as {"include_usage": true}',
  'stream_options.include_usage': 'a boolean',
  response_format: "an object whose type is 'text', 'json_object' or 'json_schema'",
  seed: 'an integer',
  tools: 'an array of tool objects',
  tool_choice: "'none', 'auto', 'required' or a tool object",
  user: 'a string',
  functions: 'an array of 1 to 128 function objects, each with a name (deprecated: use tools)',
  function_call: "'none', 'auto' or an object naming a function (deprecated: use tool_choice)",
};

/**
 * zod copies the context as `{ ...ctx, async: false }`. With `async` already in it that copy adds no property:
 * on Node.js 20 a property added after a leading spread makes a new hidden class on every call (see
 * `attemptOptions` in deps.ts).
 */
const PARSE_CONTEXT = { reportInput: true, async: false };

/** Parses a chat request as OpenAI does; unknown fields are ignored. */
export function parseChatRequest(body: unknown): ChatCompletionRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      `The request body must be a JSON object with 'model' and 'messages'; received ${describe(body)}.`,
      { code: 'invalid_request_body' },
    );
  }
  const result = ChatCompletionRequest.safeParse(body, PARSE_CONTEXT);
  const issue = result.error?.issues[0];
  if (issue) throw invalidParameter(issue, { expected: EXPECTED });
  if (!result.success) throw new ServiceError('invalid_request', 'The request is invalid.');
  const request = result.data;
  if (request.stream_options != null && request.stream !== true) {
    throw new ServiceError(
      'invalid_request',
      `The 'stream_options' parameter is only allowed when 'stream' is enabled: expected 'stream' to be true, but received ${describe(request.stream ?? undefined)}.`,
      { param: 'stream_options', code: 'invalid_value' },
    );
  }
  return request;
}

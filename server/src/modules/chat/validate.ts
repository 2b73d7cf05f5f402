import { setImmediate as nextTurn } from 'node:timers/promises';
import { ChatCompletionRequest, ChatMessage, MAX_CHOICES } from '@tessera/shared';
import { z } from 'zod';
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

/** Messages checked in one turn of the event loop: zod takes up to ~1.5 µs a message on a slow 2-vCPU machine. */
const MESSAGES_A_TURN = 2_000;
const MessageSlice = z.array(ChatMessage);

/**
 * Parses a chat request as OpenAI does; unknown fields are ignored. A conversation of many messages (up to the
 * body's 100,000 values: 30,000 short ones took 25-50 ms to check at once) is checked a slice a turn, so that
 * other requests go on meanwhile; the first problem reported is the one a check of the whole would report.
 */
export async function parseChatRequest(body: unknown): Promise<ChatCompletionRequest> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      `The request body must be a JSON object with 'model' and 'messages'; received ${describe(body)}.`,
      { code: 'invalid_request_body' },
    );
  }
  if (plainRequest(body as Record<string, unknown>)) return checkStreamOptions(body as ChatCompletionRequest);
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || messages.length <= MESSAGES_A_TURN) {
    const result = ChatCompletionRequest.safeParse(body, PARSE_CONTEXT);
    const issue = result.error?.issues[0];
    if (issue) throw invalidParameter(issue, { expected: EXPECTED });
    if (!result.success) throw new ServiceError('invalid_request', 'The request is invalid.');
    return checkStreamOptions(result.data);
  }
  // Everything but the messages at once (with the first message standing in for them), then the messages.
  const rest = ChatCompletionRequest.safeParse({ ...body, messages: messages.slice(0, 1) }, PARSE_CONTEXT);
  const restIssue = rest.error?.issues[0];
  // `model` comes before `messages`: a problem there, or in the first message, is the first problem.
  if (restIssue && (restIssue.path[0] === 'model' || restIssue.path[0] === 'messages')) {
    throw invalidParameter(restIssue, { expected: EXPECTED });
  }
  const parsed: ChatMessage[] = [];
  for (let at = 0; at < messages.length; at += MESSAGES_A_TURN) {
    if (at > 0) await nextTurn();
    const slice = MessageSlice.safeParse(messages.slice(at, at + MESSAGES_A_TURN), PARSE_CONTEXT);
    const issue = slice.error?.issues[0];
    if (issue) {
      const [index, ...inside] = issue.path;
      throw invalidParameter(
        { ...issue, path: ['messages', at + Number(index), ...inside] },
        { expected: EXPECTED },
      );
    }
    if (slice.success) for (const message of slice.data) parsed.push(message);
  }
  if (restIssue) throw invalidParameter(restIssue, { expected: EXPECTED });
  if (!rest.success) throw new ServiceError('invalid_request', 'The request is invalid.');
  return checkStreamOptions({ ...rest.data, messages: parsed });
}

function checkStreamOptions(request: ChatCompletionRequest): ChatCompletionRequest {
  if (request.stream_options != null && request.stream !== true) {
    throw new ServiceError(
      'invalid_request',
      `The 'stream_options' parameter is only allowed when 'stream' is enabled: expected 'stream' to be true, but received ${describe(request.stream ?? undefined)}.`,
      { param: 'stream_options', code: 'invalid_value' },
    );
  }
  return request;
}

/** Roles whose message is valid with a string `content` and an optional `name` alone. */
const PLAIN_ROLES = new Set(['system', 'developer', 'user', 'assistant']);
const nullish = (v: unknown) => v === undefined || v === null;
const numberIn = (v: unknown, min: number, max: number) =>
  nullish(v) || (typeof v === 'number' && v >= min && v <= max);
const intIn = (v: unknown, min: number, max: number) =>
  nullish(v) || (Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max);
const stringOrNull = (v: unknown) => nullish(v) || typeof v === 'string';

/**
 * Whether a body is a request the schema surely accepts unchanged: text messages of the plain roles and scalar
 * parameters in range, other fields (passed through by the schema) anything. Most calls are such requests, and this
 * takes a fraction of zod's time (no copy of the body, no issue list): it was the gateway's largest cost of its own
 * in a CPU profile under load (issue 42). Anything else (tools, content parts, a parameter out of range, a wrong
 * type) returns false and gets zod's full parse and its errors; validate.test.ts checks that what this accepts, zod
 * accepts and returns equal.
 */
export function plainRequest(body: Record<string, unknown>): boolean {
  const { model, messages } = body;
  if (typeof model !== 'string' || model.length === 0) return false;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MESSAGES_A_TURN) return false;
  for (const m of messages as unknown[]) {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
    const message = m as Record<string, unknown>;
    if (typeof message.role !== 'string' || !PLAIN_ROLES.has(message.role)) return false;
    if (typeof message.content !== 'string') return false;
    if (message.name !== undefined && typeof message.name !== 'string') return false;
    if (
      message.tool_calls !== undefined ||
      message.tool_call_id !== undefined ||
      message.function_call !== undefined
    )
      return false;
  }
  const options = body.stream_options;
  return (
    numberIn(body.temperature, 0, 2) &&
    numberIn(body.top_p, 0, 1) &&
    intIn(body.n, 1, MAX_CHOICES) &&
    stringOrNull(body.stop) &&
    intIn(body.max_tokens, 1, Number.MAX_SAFE_INTEGER) &&
    intIn(body.max_completion_tokens, 1, Number.MAX_SAFE_INTEGER) &&
    numberIn(body.presence_penalty, -2, 2) &&
    numberIn(body.frequency_penalty, -2, 2) &&
    (nullish(body.stream) || typeof body.stream === 'boolean') &&
    // stream_options is a strict object (the schema drops other keys): only {} or { include_usage: <boolean> }.
    (nullish(options) ||
      (typeof options === 'object' &&
        !Array.isArray(options) &&
        Object.keys(options as object).every(
          (k) => k === 'include_usage' && typeof (options as Record<string, unknown>)[k] === 'boolean',
        ))) &&
    intIn(body.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) &&
    stringOrNull(body.user) &&
    nullish(body.response_format) &&
    nullish(body.tools) &&
    nullish(body.tool_choice) &&
    nullish(body.functions) &&
    nullish(body.function_call)
  );
}

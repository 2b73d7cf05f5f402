import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  FunctionCallItem,
  FunctionCallOutputItem,
  InputMessageItem,
  MAX_METADATA_PAIRS,
  ReasoningInputItem,
  type ResponseInputItem,
  ResponseRequest,
} from '@tessera/shared';
import { z } from 'zod';
import { ServiceError } from '../../errors';
import { describeValue as describe, invalidParameter } from '../../lib/invalid-parameter';

/** What each parameter must be, in words, for messages that say "expected X, received Y". */
const EXPECTED: Record<string, string> = {
  model: 'a non-empty string naming a model',
  input: 'a string or a non-empty array of input items',
  'input.*': "an input item: a message, a 'function_call' or a 'function_call_output'",
  'input.*.role': "one of 'user', 'assistant', 'system', 'developer'",
  'input.*.content': 'a string or an array of content parts',
  'input.*.content.*':
    "a content part: 'input_text', 'input_image' (or 'output_text', 'refusal' for assistant messages)",
  'input.*.content.*.type':
    "'input_text' or 'input_image' (or 'output_text', 'refusal' for assistant messages)",
  'input.*.call_id': 'a string of 1 to 64 characters naming the function call',
  'input.*.arguments': 'a string (the JSON text of the arguments)',
  'input.*.output': "a string or an array of 'input_text' parts",
  instructions: 'a string',
  max_output_tokens: 'an integer of at least 16',
  temperature: 'a number between 0 and 2',
  top_p: 'a number between 0 and 1',
  tools: 'an array of function tools',
  'tools.*': "a function tool: {type: 'function', name, parameters}",
  'tools.*.name': 'a string of 1 to 64 characters',
  tool_choice: "'none', 'auto', 'required' or {type: 'function', name}",
  parallel_tool_calls: 'a boolean',
  text: "an object such as {format: {type: 'json_object'}}",
  'text.format': "{type: 'text'}, {type: 'json_object'} or {type: 'json_schema', name, schema}",
  'text.format.type': "'text', 'json_object' or 'json_schema'",
  stream: 'a boolean',
  metadata: `an object of at most ${MAX_METADATA_PAIRS} string values (keys of at most 64 characters, values of at most 512)`,
  user: 'a string',
  store: 'false (Tessera stores no responses)',
  background: 'false (Tessera answers every response while the request waits)',
  include: 'an array of strings',
};

const PARSE_CONTEXT = { reportInput: true };

function unsupported(param: string, message: string): ServiceError {
  return new ServiceError('invalid_request', message, { param, code: 'unsupported_parameter' });
}

/** Function tools are what a chat model can call; OpenAI's hosted tools run on OpenAI's servers. */
function checkTools(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((tool, i) => {
    const type = (tool as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && type !== 'function')
      throw new ServiceError(
        'invalid_request',
        `Tool type '${type}' is not supported: /v1/responses on Tessera calls function tools ({type: 'function', name, parameters}); hosted tools run on OpenAI's own servers.`,
        { param: `tools[${i}].type`, code: 'unsupported_value' },
      );
  });
}

const ITEM_TYPES = new Set(['message', 'function_call', 'function_call_output', 'reasoning']);
const PART_TYPES = new Set(['input_text', 'input_image', 'output_text', 'refusal']);

/** Items and content parts of a kind Tessera cannot translate, named before zod's less specific union errors. */
function checkInput(input: unknown): void {
  if (!Array.isArray(input)) return;
  input.forEach((item, i) => {
    if (item === null || typeof item !== 'object') return;
    const type = (item as { type?: unknown }).type;
    if (type === 'item_reference')
      throw unsupported(
        `input[${i}]`,
        "Item references need stored responses, and Tessera stores none: send the item itself in 'input'.",
      );
    if (typeof type === 'string' && !ITEM_TYPES.has(type))
      throw new ServiceError(
        'invalid_request',
        `Input items of type '${type}' are not supported: use messages, 'function_call' and 'function_call_output' items.`,
        { param: `input[${i}].type`, code: 'unsupported_value' },
      );
    const content = (item as { content?: unknown }).content;
    if (!Array.isArray(content)) return;
    content.forEach((part, j) => {
      const partType = (part as { type?: unknown } | null)?.type;
      if (typeof partType === 'string' && !PART_TYPES.has(partType))
        throw new ServiceError(
          'invalid_request',
          `Content parts of type '${partType}' are not supported: use 'input_text' and 'input_image' (with an image_url).`,
          { param: `input[${i}].content[${j}].type`, code: 'unsupported_value' },
        );
      const { file_id: fileId, image_url: url } = (part ?? {}) as { file_id?: unknown; image_url?: unknown };
      if (partType === 'input_image' && (url === undefined || url === null))
        throw new ServiceError(
          'invalid_request',
          fileId
            ? "Images by 'file_id' are not supported (Tessera has no files API): send an 'image_url' (https or a data URL)."
            : "An 'input_image' part needs an 'image_url' (https or a data URL).",
          { param: `input[${i}].content[${j}].image_url`, code: 'missing_required_parameter' },
        );
    });
  });
}

/** The parameters that need state Tessera does not keep, refused with what to do instead. */
function checkStateless(body: Record<string, unknown>): void {
  const given = (k: string) => body[k] !== undefined && body[k] !== null;
  if (body.store === true)
    throw unsupported(
      'store',
      "Tessera stores no responses: send 'store': false (or leave it out) and keep the conversation on the client, sending its earlier items in 'input'.",
    );
  if (given('previous_response_id'))
    throw unsupported(
      'previous_response_id',
      "Tessera stores no responses, so 'previous_response_id' cannot be resolved: send the earlier turns' items in 'input'.",
    );
  if (given('conversation'))
    throw unsupported(
      'conversation',
      "Tessera keeps no conversations: send the earlier turns' items in 'input'.",
    );
  if (body.background === true)
    throw unsupported(
      'background',
      "Background responses are not supported: leave out 'background' (or use 'stream': true for long answers).",
    );
  if (given('prompt'))
    throw unsupported(
      'prompt',
      "Prompt templates live on OpenAI's platform and are not supported: send 'instructions' and 'input'.",
    );
}

/**
 * The issue to report from a union's: a missing value is missing whatever the union; otherwise the issue of the
 * one branch whose type the value has (an array's items for `string | array`), with its full path.
 */
function specific(issue: z.core.$ZodIssue | undefined): z.core.$ZodIssue | undefined {
  if (issue?.code !== 'invalid_union') return issue;
  if (issue.input === undefined)
    return {
      code: 'invalid_type',
      expected: 'string',
      path: issue.path,
      message: 'required',
      input: undefined,
    };
  const typed = issue.errors.filter(
    (errs) => !(errs[0]?.code === 'invalid_type' && errs[0].path.length === 0),
  );
  const first = typed.length === 1 ? typed[0]?.[0] : undefined;
  if (!first) return issue;
  return specific({ ...first, path: [...issue.path, ...first.path] });
}

/**
 * Items checked in one turn of the event loop: zod takes a few microseconds an item, and a body may hold some
 * 30,000 of them (its 100,000 values), which checked at once held the event loop for 100-400 ms.
 */
const ITEMS_A_TURN = 500;

/** Checks each input item by its own type (a precise `param`), a slice of them a turn. */
async function parseItems(input: unknown[]): Promise<ResponseInputItem[]> {
  const items: ResponseInputItem[] = [];
  for (let i = 0; i < input.length; i++) {
    if (i > 0 && i % ITEMS_A_TURN === 0) await nextTurn();
    const item = input[i];
    const type = (item as { type?: unknown } | null)?.type;
    const schema = ITEM_SCHEMAS[typeof type === 'string' ? type : 'message'] ?? InputMessageItem;
    const parsed = schema.safeParse(item, PARSE_CONTEXT);
    if (!parsed.success)
      throw invalidParameter(specific(parsed.error.issues[0]), {
        prefix: `input[${i}]`,
        expected: ITEM_EXPECTED,
      });
    items.push(parsed.data);
  }
  return items;
}

/** Parses a Responses request; the first problem is a 400 whose `param` is OpenAI's path (`input[0].content`). */
export async function parseResponseRequest(body: unknown): Promise<ResponseRequest> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      `The request body must be a JSON object with 'model' and 'input'; received ${describe(body)}.`,
      { code: 'invalid_request_body' },
    );
  }
  const record = body as Record<string, unknown>;
  checkStateless(record);
  checkTools(record.tools);
  checkInput(record.input);
  const result = WithoutItems.safeParse(body, PARSE_CONTEXT);
  if (!result.success) throw invalidParameter(specific(result.error.issues[0]), { expected: EXPECTED });
  const { input } = result.data;
  return { ...result.data, input: typeof input === 'string' ? input : await parseItems(input) };
}

/** The request with its input items left to ITEM_SCHEMAS, each checked by its own type for a precise `param`. */
const WithoutItems = ResponseRequest.extend({ input: z.union([z.string(), z.array(z.unknown()).min(1)]) });

const ITEM_SCHEMAS: Record<string, z.ZodType<ResponseInputItem>> = {
  message: InputMessageItem,
  function_call: FunctionCallItem,
  function_call_output: FunctionCallOutputItem,
  reasoning: ReasoningInputItem,
};

/** EXPECTED's words for an item's own fields (their paths are the item's, the `input[i]` prefix aside). */
const ITEM_EXPECTED: Record<string, string> = Object.fromEntries(
  Object.entries(EXPECTED)
    .filter(([k]) => k.startsWith('input.*.'))
    .map(([k, v]) => [k.slice('input.*.'.length), v]),
);

import type { ChatCompletionRequest } from '@tessera/shared';
import { ServiceError } from '../../errors';

/**
 * OpenAI's `response_format` on the Messages API, which has no such field: the answer is asked for as the input
 * of one tool the model is made to call, whose input schema is the requested JSON schema (`json_schema`) or any
 * object (`json_object`). The call's input comes back to the client as the message's content, finish `stop`.
 */
export const RESPONSE_TOOL = 'json_response';

export interface ResponseTool {
  name: typeof RESPONSE_TOOL;
  description: string;
  input_schema: Record<string, unknown>;
}

/** The tool that carries a JSON answer, or undefined when the request asks for text. */
export function responseToolOf(request: ChatCompletionRequest): ResponseTool | undefined {
  const format = request.response_format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    return {
      name: RESPONSE_TOOL,
      description:
        'Give your whole response as a JSON object: call this tool once, with the object as its input.',
      input_schema: { type: 'object' },
    };
  }
  const spec = (format as { json_schema?: { name?: unknown; description?: unknown; schema?: unknown } })
    .json_schema;
  const schema = spec?.schema ?? { type: 'object' };
  if (schema === null || typeof schema !== 'object' || (schema as { type?: unknown }).type !== 'object') {
    throw new ServiceError(
      'invalid_request',
      `Invalid schema for response_format: model '${request.model}' takes a JSON schema whose root is of type 'object'.`,
      { param: 'response_format.json_schema.schema', code: 'invalid_value' },
    );
  }
  const named = typeof spec?.name === 'string' ? ` '${spec.name}'` : '';
  const about = typeof spec?.description === 'string' ? ` (${spec.description})` : '';
  return {
    name: RESPONSE_TOOL,
    description: `Give your whole response as the JSON document${named}${about}: call this tool once, with the document as its input.`,
    input_schema: schema as Record<string, unknown>,
  };
}

/**
 * Anthropic's `tools` and `tool_choice` with the response tool added, so that the model answers with JSON and
 * never with text, as OpenAI's response_format makes it:
 * - no tools of the client's own, or its `tool_choice` is 'none': the response tool is the only one, forced;
 * - `tool_choice` 'auto' (or none given): the model must call a tool (Anthropic's `any`), the client's or the
 *   response tool, so that it answers with tool calls or the JSON;
 * - 'required' or a named function: this turn must be a call of the client's tools, so the response tool is
 *   left out (the JSON comes in a later turn, once the tools' results are in).
 */
export function withResponseTool(
  fields: Record<string, unknown>,
  tool: ResponseTool,
  request: ChatCompletionRequest,
): Record<string, unknown> {
  const tools = (fields.tools as unknown[] | undefined) ?? [];
  if (tools.some((t) => (t as { name?: unknown }).name === RESPONSE_TOOL)) {
    throw new ServiceError(
      'invalid_request',
      `The tool name '${RESPONSE_TOOL}' is reserved when response_format asks model '${request.model}' for JSON.`,
      { param: 'tools', code: 'invalid_value' },
    );
  }
  const choice = fields.tool_choice as { type?: unknown } | undefined;
  if (tools.length === 0 || choice?.type === 'none') {
    return { tools: [tool], tool_choice: { type: 'tool', name: RESPONSE_TOOL } };
  }
  if (choice?.type === 'any' || choice?.type === 'tool') return fields;
  // disable_parallel_tool_use (parallel_tool_calls: false) is kept.
  return { ...fields, tools: [...tools, tool], tool_choice: { ...choice, type: 'any' } };
}

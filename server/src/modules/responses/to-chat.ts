import type {
  FunctionCallItem,
  FunctionCallOutputItem,
  InputContentPart,
  InputMessageItem,
  ResponseInputItem,
  ResponseRequest,
} from '@tessera/shared';

/** A chat message as the chat service's body takes it (checked again there by its own schema). */
type ChatMessageBody = Record<string, unknown> & { role: string };

function isFunctionCall(item: ResponseInputItem): item is FunctionCallItem {
  return item.type === 'function_call';
}

function isFunctionCallOutput(item: ResponseInputItem): item is FunctionCallOutputItem {
  return item.type === 'function_call_output';
}

function isMessage(item: ResponseInputItem): item is InputMessageItem {
  return item.type === undefined || item.type === 'message';
}

/** A content part in chat terms: text parts as text, images by URL with their detail. */
function chatPart(part: InputContentPart): Record<string, unknown> {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image':
      return {
        type: 'image_url',
        image_url: part.detail ? { url: part.image_url, detail: part.detail } : { url: part.image_url },
      };
  }
}

/** What an assistant said earlier, as the text chat takes back (every provider reads a string). */
function assistantText(content: InputMessageItem['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) =>
      p.type === 'output_text' || p.type === 'input_text' ? p.text : p.type === 'refusal' ? p.refusal : '',
    )
    .join('');
}

/**
 * The input items as chat messages, in order: `instructions` first as a system message; a function call joins
 * the assistant message before it (or starts one), as chat puts a turn's text and tool calls in one message; its
 * output becomes a tool message; reasoning items are left out.
 */
export function chatMessages(request: ResponseRequest): ChatMessageBody[] {
  const messages: ChatMessageBody[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  const input =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  let turn: ChatMessageBody | undefined;
  for (const item of input as ResponseInputItem[]) {
    if (isFunctionCall(item)) {
      if (!turn) {
        turn = { role: 'assistant', content: null };
        messages.push(turn);
      }
      const calls = (turn.tool_calls ?? []) as unknown[];
      turn.tool_calls = calls;
      calls.push({
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      });
      continue;
    }
    turn = undefined;
    if (isFunctionCallOutput(item)) {
      const output = typeof item.output === 'string' ? item.output : item.output.map((p) => p.text).join('');
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: output });
    } else if (isMessage(item)) {
      if (item.role === 'assistant') {
        turn = { role: 'assistant', content: assistantText(item.content) };
        messages.push(turn);
      } else {
        const content = typeof item.content === 'string' ? item.content : item.content.map(chatPart);
        messages.push({ role: item.role, content });
      }
    }
  }
  return messages;
}

/** The chat completion request that answers a Responses request (always with the stream's usage chunk). */
export function chatRequest(request: ResponseRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: chatMessages(request) };
  if (request.max_output_tokens != null) body.max_completion_tokens = request.max_output_tokens;
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.user != null) body.user = request.user;
  if (request.safety_identifier != null) body.safety_identifier = request.safety_identifier;
  if (request.prompt_cache_key != null) body.prompt_cache_key = request.prompt_cache_key;
  if (request.service_tier != null) body.service_tier = request.service_tier;
  if (request.reasoning?.effort != null) body.reasoning_effort = request.reasoning.effort;
  if (request.text?.verbosity != null) body.verbosity = request.text.verbosity;
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description != null && { description: t.description }),
        ...(t.parameters != null && { parameters: t.parameters }),
        ...(t.strict != null && { strict: t.strict }),
      },
    }));
    if (request.parallel_tool_calls != null) body.parallel_tool_calls = request.parallel_tool_calls;
  }
  const choice = request.tool_choice;
  // Without tools, 'auto' and 'none' say nothing (agents send them on every turn); chat would refuse them.
  const idle = !body.tools && (choice === 'auto' || choice === 'none');
  if (choice != null && !idle)
    body.tool_choice =
      typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  const format = request.text?.format;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema')
    body.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description != null && { description: format.description }),
        ...(format.strict != null && { strict: format.strict }),
      },
    };
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

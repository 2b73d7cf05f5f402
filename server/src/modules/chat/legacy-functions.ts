import type {
  AssistantMessage,
  ChatCompletionRequest,
  ChatMessage,
  ChunkDelta,
  FinishReason,
} from '@tessera/shared';
import { ServiceError } from '../../errors';

/**
 * OpenAI's deprecated function-calling API (`functions`, `function_call`, `role: "function"`), which clients
 * written before tools still send, as tools: every provider is asked with `tools` (all of them, OpenAI's own
 * included, take those), and the answer's first tool call comes back as the message's `function_call`, with
 * finish `function_call`, as OpenAI answered such requests.
 */
export function usesFunctions(request: ChatCompletionRequest): boolean {
  return (request.functions?.length ?? 0) > 0;
}

/** Messages of the function-calling API (a function's result, an assistant's call), with or without `functions`. */
export function hasFunctionPieces(request: ChatCompletionRequest): boolean {
  return request.messages.some((m) => m.role === 'function' || m.function_call !== undefined);
}

/** The id a legacy call gets, to pair it with the function message that answers it. */
function callId(turn: number): string {
  return `call_fn_${turn}`;
}

/**
 * The request in tools' terms: functions as tools, function_call as tool_choice, the messages' calls as tool
 * calls and the functions' results as tool messages (a request with only the messages has those translated).
 */
export function asToolsRequest(request: ChatCompletionRequest): ChatCompletionRequest {
  const legacy = usesFunctions(request);
  if (legacy && request.tools && request.tools.length > 0) {
    throw new ServiceError(
      'invalid_request',
      "Invalid value for 'functions': give either 'tools' or the deprecated 'functions', not both.",
      { param: 'functions', code: 'invalid_value' },
    );
  }
  const { functions, function_call: choice, ...rest } = request;
  const tools = (functions ?? []).map((f) => ({ type: 'function', function: f }));
  const toolChoice =
    choice === 'none' || choice === 'auto'
      ? choice
      : choice
        ? { type: 'function', function: { name: choice.name } }
        : undefined;
  let turn = 0;
  const messages = request.messages.map((m): ChatMessage => {
    if (m.role === 'assistant' && m.function_call) {
      turn += 1;
      const { function_call: call, ...message } = m;
      return { ...message, tool_calls: [{ id: callId(turn), type: 'function', function: call }] };
    }
    if (m.role === 'function') {
      const { name: _name, ...message } = m;
      return { ...message, role: 'tool', tool_call_id: callId(turn), content: m.content ?? '' };
    }
    return m;
  });
  if (!legacy) return { ...rest, messages };
  return {
    ...rest,
    messages,
    tools,
    ...(toolChoice !== undefined && { tool_choice: toolChoice }),
    // A function-calling answer holds one call.
    parallel_tool_calls: false,
  } as ChatCompletionRequest;
}

/** A whole answer's message as the function-calling API gave it: its first tool call as `function_call`. */
export function asFunctionMessage(message: AssistantMessage): AssistantMessage {
  if (!message.tool_calls) return message;
  const { tool_calls: calls, ...rest } = message;
  const first = calls[0];
  return first ? { ...rest, function_call: first.function } : rest;
}

export function asFunctionFinish(reason: FinishReason): FinishReason {
  return reason === 'tool_calls' ? 'function_call' : reason;
}

/** A stream delta likewise: the first tool call's name and argument pieces as `function_call`. */
export function asFunctionDelta(delta: ChunkDelta): ChunkDelta {
  if (!delta.tool_calls) return delta;
  const { tool_calls: calls, ...rest } = delta;
  const first = calls.find((c) => c.index === 0) as
    | { function?: { name?: string; arguments?: string } }
    | undefined;
  if (!first?.function) return rest;
  const { name, arguments: args } = first.function;
  return {
    ...rest,
    function_call: { ...(name !== undefined && { name }), arguments: args ?? '' },
  };
}

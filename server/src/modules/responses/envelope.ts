import type {
  FinishReason,
  OutputItem,
  ResponseObject,
  ResponseRequest,
  ResponseUsage,
  Usage,
} from '@tessera/shared';
import { randomBase62 } from '../../lib/ids';

/** Ids in OpenAI's forms: `resp_…` for a response, `msg_…`, `fc_…`, `rs_…` for its output items. */
export function responseId(): string {
  return `resp_${randomBase62(32)}`;
}

export function itemId(prefix: 'msg' | 'fc' | 'rs'): string {
  return `${prefix}_${randomBase62(32)}`;
}

/** A function call's id when the upstream's stream gave none, in OpenAI's form (`call_` and 24 characters). */
export function callId(): string {
  return `call_${randomBase62(24)}`;
}

/**
 * The response as it stands before any output: the request's settings echoed as OpenAI echoes them (defaults
 * where it left them out), no output, no usage. The answer and the stream's events fill in the rest.
 */
export function responseShell(
  request: ResponseRequest,
  id: string,
  createdAt: number,
  model: string,
): ResponseObject {
  const choice = request.tool_choice ?? 'auto';
  const shell: ResponseObject = {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    completed_at: null,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: choice,
    tools: (request.tools ?? []).map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? null,
    })),
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    metadata: request.metadata ?? {},
  };
  if (request.user != null) shell.user = request.user;
  return shell;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/** Chat's token counts in the Responses API's words (the breakdowns 0 when the provider gave none). */
export function responseUsage(usage: Usage): ResponseUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** A finished response: `incomplete` (with its reason) when the model stopped at the cap or at a filter. */
export function finish(
  response: ResponseObject,
  reason: FinishReason | null,
  output: OutputItem[],
  usage: ResponseUsage,
  completedAt: number,
): ResponseObject {
  const incomplete =
    reason === 'length' ? 'max_output_tokens' : reason === 'content_filter' ? 'content_filter' : undefined;
  const status = incomplete ? 'incomplete' : 'completed';
  for (const item of output) if (item.status === 'in_progress') item.status = status;
  return {
    ...response,
    status,
    completed_at: completedAt,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    output,
    usage,
  };
}

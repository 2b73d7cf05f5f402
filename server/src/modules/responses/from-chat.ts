import type { AssistantMessage, ChatCompletion, OutputItem, ResponseObject } from '@tessera/shared';
import { finish, itemId, responseUsage } from './envelope';

/**
 * A chat answer's message as output items, in the order the model produced them: its reasoning (from upstreams
 * that show it), its text or refusal as one message, then each tool call as a `function_call` item whose
 * `call_id` is the chat tool call's id (what the client's `function_call_output` answers).
 */
export function outputItems(message: AssistantMessage): OutputItem[] {
  const items: OutputItem[] = [];
  if (message.reasoning_content)
    items.push({
      id: itemId('rs'),
      type: 'reasoning',
      status: 'in_progress',
      summary: [],
      content: [{ type: 'reasoning_text', text: message.reasoning_content }],
    });
  const content = [];
  if (message.content)
    content.push({ type: 'output_text' as const, text: message.content, annotations: [], logprobs: [] });
  if (message.refusal) content.push({ type: 'refusal' as const, refusal: message.refusal });
  if (content.length > 0)
    items.push({ id: itemId('msg'), type: 'message', status: 'in_progress', role: 'assistant', content });
  for (const call of message.tool_calls ?? [])
    items.push({
      id: itemId('fc'),
      type: 'function_call',
      status: 'in_progress',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  return items;
}

/** The response for a non-streamed chat completion (one choice: the Responses API has no `n`). */
export function responseOf(shell: ResponseObject, completion: ChatCompletion): ResponseObject {
  const choice = completion.choices[0];
  const output = choice ? outputItems(choice.message) : [];
  return finish(
    { ...shell, model: completion.model },
    choice?.finish_reason ?? null,
    output,
    responseUsage(completion.usage),
    completion.created,
  );
}

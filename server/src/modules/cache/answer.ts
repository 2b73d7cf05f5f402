import type {
  AssistantMessage,
  ChatCompletion,
  ChatCompletionChunk,
  ChoiceLogprobs,
  ChunkChoice,
  FinishReason,
  Usage,
} from '@tessera/shared';
import { ChunkEnvelope, completionId } from '../chat/envelope';

/** One choice of a cached answer, whole (a streamed answer's deltas put together). */
export interface CachedChoice {
  index: number;
  message: AssistantMessage;
  logprobs: ChoiceLogprobs | null;
  finish_reason: FinishReason;
}

/**
 * A cached answer, as stored (JSON): enough to answer as JSON or as a stream, whichever way the hit asks. `at`
 * is when it was stored (a reader whose key keeps answers for less time than the writer's does not take an older
 * one); `costMicros` what the model's answer cost then, which each hit saves.
 */
export interface CachedAnswer {
  v: 1;
  at: number;
  model: string;
  provider: string;
  fingerprint?: string | null;
  choices: CachedChoice[];
  usage: Usage;
  costMicros: number | null;
}

/** Parses a stored entry; undefined for a text that is not one (another version, or damaged). */
export function parseAnswer(text: string): CachedAnswer | undefined {
  try {
    const value = JSON.parse(text) as Partial<CachedAnswer>;
    if (value?.v !== 1 || !Array.isArray(value.choices) || typeof value.model !== 'string') return undefined;
    return value as CachedAnswer;
  } catch {
    return undefined;
  }
}

/** The answer as a non-streamed completion: a fresh id and `created`, the rest as the model gave it. */
export function asCompletion(answer: CachedAnswer, created: number): ChatCompletion {
  const completion: ChatCompletion = {
    id: completionId(),
    object: 'chat.completion',
    created,
    model: answer.model,
    choices: answer.choices.map((c) => ({
      index: c.index,
      message: c.message,
      logprobs: c.logprobs,
      finish_reason: c.finish_reason,
    })),
    usage: answer.usage,
  };
  if (answer.fingerprint !== undefined) completion.system_fingerprint = answer.fingerprint;
  return completion;
}

/**
 * The answer as the chunks of a stream (their JSON texts), shaped as a live stream's: one id and `created`,
 * each choice's whole message in one delta with the role, then a chunk with every finish reason, then, with
 * `include_usage`, the usage chunk (`usage: null` on the others). `[DONE]` is the sink's.
 */
export function asChunks(answer: CachedAnswer, created: number, includeUsage: boolean): string[] {
  const envelope = new ChunkEnvelope(created, answer.model, includeUsage);
  if (answer.fingerprint !== undefined) envelope.fingerprintOf(answer.fingerprint);
  const chunks = answer.choices.map((c) =>
    envelope.chunk([
      { index: c.index, delta: deltaOf(c.message), logprobs: c.logprobs, finish_reason: null },
    ]),
  );
  chunks.push(
    envelope.chunk(
      answer.choices.map((c) => ({
        index: c.index,
        delta: {},
        logprobs: null,
        finish_reason: c.finish_reason,
      })),
    ),
  );
  if (includeUsage) chunks.push(envelope.usage(answer.usage));
  return chunks;
}

function deltaOf(message: AssistantMessage): ChunkChoice['delta'] {
  const delta: ChunkChoice['delta'] = { role: 'assistant' };
  if (message.content !== null) delta.content = message.content;
  if (message.refusal !== null) delta.refusal = message.refusal;
  if (message.reasoning_content !== undefined) delta.reasoning_content = message.reasoning_content;
  if (message.tool_calls) delta.tool_calls = message.tool_calls.map((call, index) => ({ index, ...call }));
  if (message.function_call) delta.function_call = message.function_call;
  return delta;
}

/** A choice being put together from a stream's deltas. */
interface ChoiceParts {
  content: string | null;
  refusal: string | null;
  reasoning: string | undefined;
  tools: Map<number, { id?: unknown; type?: unknown; name: string; arguments: string }>;
  functionCall: { name: string; arguments: string } | undefined;
  logprobs: { content: unknown[]; refusal: unknown[] } | null;
  finish: FinishReason | null;
}

/**
 * Puts a stream's chunks (as sent to the client) back together into whole choices: contents concatenated, tool
 * calls gathered by their index, log probabilities appended, the finish reason kept.
 */
export class StreamAssembly {
  private readonly choices = new Map<number, ChoiceParts>();
  model = '';
  fingerprint: string | null | undefined;
  usage: Usage | undefined;

  add(json: string): void {
    const chunk = JSON.parse(json) as ChatCompletionChunk;
    this.model = chunk.model;
    if (chunk.system_fingerprint !== undefined) this.fingerprint = chunk.system_fingerprint;
    if (chunk.usage) this.usage = chunk.usage;
    for (const c of chunk.choices) {
      let parts = this.choices.get(c.index);
      if (!parts) {
        parts = {
          content: null,
          refusal: null,
          reasoning: undefined,
          tools: new Map(),
          functionCall: undefined,
          logprobs: null,
          finish: null,
        };
        this.choices.set(c.index, parts);
      }
      addDelta(parts, c);
    }
  }

  /** The whole choices, in index order; undefined unless every choice finished. */
  finished(): CachedChoice[] | undefined {
    const out: CachedChoice[] = [];
    for (const [index, p] of [...this.choices].sort(([a], [b]) => a - b)) {
      if (p.finish === null) return undefined;
      const message: AssistantMessage = { role: 'assistant', content: p.content, refusal: p.refusal };
      if (p.tools.size > 0)
        message.tool_calls = [...p.tools]
          .sort(([a], [b]) => a - b)
          .map(([, t]) => ({
            id: t.id,
            type: t.type,
            function: { name: t.name, arguments: t.arguments },
          })) as AssistantMessage['tool_calls'];
      if (p.functionCall) message.function_call = p.functionCall;
      if (p.reasoning !== undefined) message.reasoning_content = p.reasoning;
      out.push({
        index,
        message,
        logprobs: p.logprobs as ChoiceLogprobs | null,
        finish_reason: p.finish,
      });
    }
    return out.length > 0 ? out : undefined;
  }
}

function addDelta(parts: ChoiceParts, c: ChunkChoice): void {
  const d = c.delta;
  if (typeof d.content === 'string') parts.content = (parts.content ?? '') + d.content;
  if (typeof d.refusal === 'string') parts.refusal = (parts.refusal ?? '') + d.refusal;
  if (typeof d.reasoning_content === 'string')
    parts.reasoning = (parts.reasoning ?? '') + d.reasoning_content;
  for (const call of d.tool_calls ?? []) {
    const piece = call as { index: number; id?: unknown; type?: unknown; function?: Record<string, unknown> };
    let tool = parts.tools.get(piece.index);
    if (!tool) {
      tool = { name: '', arguments: '' };
      parts.tools.set(piece.index, tool);
    }
    if (piece.id !== undefined) tool.id = piece.id;
    if (piece.type !== undefined) tool.type = piece.type;
    if (typeof piece.function?.name === 'string') tool.name += piece.function.name;
    if (typeof piece.function?.arguments === 'string') tool.arguments += piece.function.arguments;
  }
  if (d.function_call) {
    parts.functionCall ??= { name: '', arguments: '' };
    parts.functionCall.name += d.function_call.name ?? '';
    parts.functionCall.arguments += d.function_call.arguments ?? '';
  }
  if (c.logprobs) {
    parts.logprobs ??= { content: [], refusal: [] };
    parts.logprobs.content.push(...(c.logprobs.content ?? []));
    parts.logprobs.refusal.push(...(c.logprobs.refusal ?? []));
  }
  if (c.finish_reason) parts.finish = c.finish_reason;
}

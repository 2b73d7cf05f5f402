import type { ChatCompletionRequest } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { allowsModel, type Principal, requireModel } from '../keys';
import type { ModelCatalogue, ModelEntry } from '../models';
import { countLongPromptTokens, countPromptTokens, promptLength } from '../tokenizer';
import { asToolsRequest, hasFunctionPieces, usesFunctions } from './legacy-functions';
import { parseChatRequest } from './validate';

/** A request that passed every check that needs no model call. */
export interface PreparedChat {
  request: ChatCompletionRequest;
  entry: ModelEntry;
  /** The entry's fallback model, when it has one and the key may use it (attempts.ts tries it if it fits). */
  fallback: ModelEntry | undefined;
  promptTokens: number;
  /** The completion cap per choice: the request's, or what fits the model. */
  maxTokens: number;
  /** Whether the client set the cap (OpenAI words the context error differently then). */
  explicitCap: boolean;
  /**
   * How many times the upstream may bill the prompt: `n` when the model or its fallback is Anthropic's, which
   * answers `n` choices as `n` calls (providers/fan-out.ts); once otherwise. The allowance reserves that many.
   */
  promptCopies: number;
  /**
   * Whether the client used the deprecated `functions` (legacy-functions.ts): `request` is then in tools' terms,
   * and the answer's tool call goes back to it as `function_call`.
   */
  functions: boolean;
}

/**
 * The context error in OpenAI's own words. `complete` is false when counting stopped once the prompt passed the
 * context (the rest of a huge prompt is not counted), so the prompt has at least `prompt` tokens.
 */
function contextError(
  entry: ModelEntry,
  prompt: number,
  completion: number | undefined,
  complete = true,
): ServiceError {
  const message =
    completion === undefined
      ? `This model's maximum context length is ${entry.context_window} tokens. However, your messages resulted in ${complete ? '' : 'at least '}${prompt} tokens. Please reduce the length of the messages.`
      : `This model's maximum context length is ${entry.context_window} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`;
  return new ServiceError('invalid_request', message, { param: 'messages', code: 'context_length_exceeded' });
}

/** Whether the model still fits this prompt and cap (also used to decide whether a fallback can take over). */
export function fitsModel(entry: ModelEntry, prompt: number, cap: number, explicitCap: boolean): boolean {
  return prompt < entry.context_window && (!explicitCap || prompt + cap <= entry.context_window);
}

/**
 * Prompts longer than this many characters are counted off the event loop (tokenizer/thread.ts), not at
 * once: counting 16,384 characters takes 3–6 ms on a 2-core machine, the most one request should hold the
 * others up. Shorter prompts, nearly all of them, are counted at once.
 */
export const LONG_PROMPT_CHARS = 16_384;

export async function prepareChat({
  catalogue,
  body,
  principal,
}: {
  catalogue: ModelCatalogue;
  body: unknown;
  /**
   * Who asks: a key limited to some models gets a 403 for another (before its prompt is counted), and long
   * prompts of different accounts take turns on the counting thread.
   */
  principal: Principal;
}): Promise<PreparedChat> {
  const parsed = await parseChatRequest(body);
  const functions = usesFunctions(parsed);
  const request = functions || hasFunctionPieces(parsed) ? asToolsRequest(parsed) : parsed;
  const entry = catalogue.require(request.model);
  // The key's access to models is decided here, once: the model asked for (403, before the prompt is counted),
  // and its fallback, since a key limited to some models is never answered by another one.
  requireModel(principal, entry.id);
  const requested = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  if (requested !== undefined && requested > entry.max_output_tokens) {
    const param = request.max_completion_tokens ? 'max_completion_tokens' : 'max_tokens';
    throw new ServiceError(
      'invalid_request',
      `${param} is too large: ${requested}. Model '${entry.id}' supports at most ${entry.max_output_tokens} completion tokens, whereas you provided ${requested}.`,
      { param, code: 'invalid_value' },
    );
  }
  const fallback = entry.fallback ? catalogue.find(entry.fallback) : undefined;
  const fansOut = servedByAnthropic(entry) || (fallback !== undefined && servedByAnthropic(fallback));
  const promptCopies = fansOut ? (request.n ?? 1) : 1;
  const usable = fallback && allowsModel(principal, fallback.id) ? fallback : undefined;
  const { messages, tools } = request;
  if (promptLength(messages, tools, LONG_PROMPT_CHARS) > LONG_PROMPT_CHARS) {
    // Past the context window the count stops: the request is refused whatever the rest holds.
    const count = await countLongPromptTokens(messages, tools, principal.accountId, entry.context_window);
    if (!count.complete) throw contextError(entry, count.tokens, undefined, false);
    return checkContext(request, entry, usable, requested, count.tokens, promptCopies, functions);
  }
  const promptTokens = countPromptTokens(messages, tools);
  return checkContext(request, entry, usable, requested, promptTokens, promptCopies, functions);
}

/** The context check, once the prompt is counted. */
function checkContext(
  request: ChatCompletionRequest,
  entry: ModelEntry,
  fallback: ModelEntry | undefined,
  requested: number | undefined,
  promptTokens: number,
  promptCopies: number,
  functions: boolean,
): PreparedChat {
  if (promptTokens >= entry.context_window) throw contextError(entry, promptTokens, undefined);
  if (requested !== undefined && promptTokens + requested > entry.context_window) {
    throw contextError(entry, promptTokens, requested);
  }
  const maxTokens = requested ?? Math.min(entry.max_output_tokens, entry.context_window - promptTokens);
  return {
    request,
    entry,
    fallback,
    promptTokens,
    maxTokens,
    explicitCap: requested !== undefined,
    promptCopies,
    functions,
  };
}

/** Whether Anthropic may answer the model (its provider, or one of its deployments'): `n` is then `n` calls. */
function servedByAnthropic(entry: ModelEntry): boolean {
  if (entry.provider === 'anthropic') return true;
  return entry.deployments?.some((d) => d.provider === 'anthropic') ?? false;
}

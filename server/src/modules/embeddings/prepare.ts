import { type EmbeddingRequest, type EncodingFormat, MAX_EMBEDDING_REQUEST_TOKENS } from '@tessera/shared';
import { ServiceError } from '../../errors';
import { type Principal, requireModel } from '../keys';
import type { EmbeddingModelEntry, ModelCatalogue } from '../models';
import { countTokens, countTokensAside, fewestTokens } from '../tokenizer';
import { parseEmbeddingRequest } from './validate';

/** A request that passed every check that needs no model call. */
export interface PreparedEmbeddings {
  request: EmbeddingRequest;
  entry: EmbeddingModelEntry;
  inputs: (string | number[])[];
  /** All the inputs' tokens: the o200k BPE's count of a text, the length of a token-id array. */
  promptTokens: number;
  /** The vectors' length: the request's `dimensions`, else the model's. */
  dimensions: number;
  encodingFormat: EncodingFormat;
}

/**
 * Texts of more characters than this, together, are counted on the counting thread rather than on the event
 * loop (chat's LONG_PROMPT_CHARS, for the same reason: 16,384 characters are 3–6 ms of counting).
 */
const LONG_TEXT_CHARS = 16_384;
/** No token is shorter than a UTF-8 byte, and a UTF-16 unit is at most 3 of them. */
const MOST_TOKENS_PER_CHAR = 3;

function paramOf(inputs: unknown[], index: number): string {
  return inputs.length === 1 && index === 0 ? 'input' : `input[${index}]`;
}

/** `complete` is false when counting stopped past the limit: the input has at least `tokens`. */
function inputTooLong(
  entry: EmbeddingModelEntry,
  param: string,
  tokens: number,
  complete = true,
): ServiceError {
  return new ServiceError(
    'invalid_request',
    `Invalid '${param}': model '${entry.id}' embeds at most ${entry.context_window} tokens an input, but this input has ${complete ? '' : 'at least '}${tokens} tokens. Please shorten it or split it into several inputs.`,
    { param, code: 'context_length_exceeded' },
  );
}

function requestTooLarge(tokens: number, complete = true): ServiceError {
  return new ServiceError(
    'invalid_request',
    `Requested ${complete ? '' : 'at least '}${tokens} tokens, max ${MAX_EMBEDDING_REQUEST_TOKENS} tokens per request: the inputs of one request may come to at most ${MAX_EMBEDDING_REQUEST_TOKENS} tokens together. Please send them in several requests.`,
    { param: 'input', code: 'max_tokens_per_request' },
  );
}

/** `dimensions` is for models that shorten their vectors, and never beyond the model's own. */
function dimensionsOf(request: EmbeddingRequest, entry: EmbeddingModelEntry): number {
  const asked = request.dimensions;
  if (asked === undefined || asked === null) return entry.dimensions;
  if (!entry.accepts_dimensions) {
    throw new ServiceError(
      'invalid_request',
      `Model '${entry.id}' does not support 'dimensions': its vectors always have ${entry.dimensions} dimensions. Leave 'dimensions' out.`,
      { param: 'dimensions', code: 'invalid_value' },
    );
  }
  if (asked > entry.dimensions) {
    throw new ServiceError(
      'invalid_request',
      `Invalid value for 'dimensions': model '${entry.id}' has ${entry.dimensions} dimensions, so 'dimensions' must be between 1 and ${entry.dimensions}, but received ${asked}.`,
      { param: 'dimensions', code: 'invalid_value' },
    );
  }
  return asked;
}

/**
 * Each input's tokens within the model's limit, and all of them within the request's. A text that cannot fit
 * (its fewest possible tokens are too many) is refused before counting; short texts (which cannot pass the
 * model's limit) are counted together, long ones one by one up to the limit, on the counting thread when
 * there is much to count (accounts taking turns there).
 */
async function countInputs(
  inputs: (string | number[])[],
  entry: EmbeddingModelEntry,
  owner: string,
): Promise<number> {
  const limit = entry.context_window;
  let tokenIds = 0;
  let fewest = 0;
  let chars = 0;
  for (const [i, input] of inputs.entries()) {
    if (typeof input !== 'string') {
      if (input.length > limit) throw inputTooLong(entry, paramOf(inputs, i), input.length);
      tokenIds += input.length;
      continue;
    }
    const least = fewestTokens(input);
    if (least > limit) throw inputTooLong(entry, paramOf(inputs, i), least, false);
    fewest += least;
    chars += input.length;
  }
  if (tokenIds + fewest > MAX_EMBEDDING_REQUEST_TOKENS) throw requestTooLarge(tokenIds + fewest, false);
  const texts = inputs.flatMap((input, i) => (typeof input === 'string' ? [{ input, i }] : []));
  if (chars <= LONG_TEXT_CHARS) {
    let tokens = tokenIds;
    for (const { input, i } of texts) {
      const count = countTokens(input);
      if (count > limit) throw inputTooLong(entry, paramOf(inputs, i), count);
      tokens += count;
    }
    if (tokens > MAX_EMBEDDING_REQUEST_TOKENS) throw requestTooLarge(tokens);
    return tokens;
  }
  const short = texts.filter(({ input }) => input.length * MOST_TOKENS_PER_CHAR <= limit);
  const long = texts.filter(({ input }) => input.length * MOST_TOKENS_PER_CHAR > limit);
  const budget = MAX_EMBEDDING_REQUEST_TOKENS + 1;
  const [shortCount, ...longCounts] = await Promise.all([
    countTokensAside(
      short.map(({ input }) => input),
      owner,
      budget,
    ),
    ...long.map(({ input }) => countTokensAside([input], owner, limit + 1)),
  ]);
  for (const [j, count] of longCounts.entries()) {
    if (count.tokens > limit)
      throw inputTooLong(entry, paramOf(inputs, long[j]?.i ?? 0), count.tokens, count.complete);
  }
  const tokens = longCounts.reduce((sum, count) => sum + count.tokens, tokenIds + (shortCount?.tokens ?? 0));
  if (tokens > MAX_EMBEDDING_REQUEST_TOKENS) throw requestTooLarge(tokens, shortCount?.complete !== false);
  return tokens;
}

export async function prepareEmbeddings({
  catalogue,
  body,
  principal,
}: {
  catalogue: ModelCatalogue;
  body: unknown;
  /** Who asks: a key limited to some models gets a 403 for another; long texts of accounts take turns. */
  principal: Principal;
}): Promise<PreparedEmbeddings> {
  const { request, inputs } = parseEmbeddingRequest(body);
  const entry = catalogue.requireEmbedding(request.model);
  requireModel(principal, entry.id);
  const dimensions = dimensionsOf(request, entry);
  const promptTokens = await countInputs(inputs, entry, principal.accountId);
  return {
    request,
    entry,
    inputs,
    promptTokens,
    dimensions,
    encodingFormat: request.encoding_format ?? 'float',
  };
}

import type {
  AssistantMessage,
  ChatCompletionRequest,
  ChoiceLogprobs,
  ChunkDelta,
  EmbeddingRequest,
  EmbeddingUsage,
  EncodingFormat,
  FinishReason,
  Usage,
} from '@tessera/shared';

/** One model call, as a provider sees it. */
export interface ProviderCall {
  /** The model's name at the provider (`upstream_model` in the catalogue). */
  upstreamModel: string;
  request: ChatCompletionRequest;
  /** Counted by Tessera before the call; providers without usage report it back. */
  promptTokens: number;
  /** The completion cap in force (the request's, or the model's maximum). */
  maxTokens: number;
  /** The request field an OpenAI-compatible upstream reads the cap from (the catalogue's `max_tokens_field`). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Aborted when the client leaves or the timeout fires. */
  signal: AbortSignal;
}

export interface ProviderChoice {
  index: number;
  message: AssistantMessage;
  finish_reason: FinishReason;
  /** The upstream's log probabilities, when the request asked for them and the upstream gave them. */
  logprobs?: ChoiceLogprobs | null;
}

export interface ProviderCompletion {
  choices: ProviderChoice[];
  usage: Usage;
  /**
   * OpenAI's `system_fingerprint`: the backend configuration that answered. An upstream's is relayed as it
   * sent it; the simulator gives its own (SIMULATOR_FINGERPRINT); absent when the provider has none.
   */
  system_fingerprint?: string | null;
}

/** A chunk in OpenAI's shape without the envelope (id, created, model) that the gateway adds. */
export interface ProviderChunk {
  choices: {
    index: number;
    delta: ChunkDelta;
    finish_reason: FinishReason | null;
    logprobs?: ChoiceLogprobs | null;
  }[];
  usage?: Usage | null;
  /** As on ProviderCompletion; OpenAI repeats it on every chunk. */
  system_fingerprint?: string | null;
}

/**
 * A model provider. `stream` resolves once the provider has accepted the call (so that failures before the first
 * byte can still be retried or become a proper HTTP error) and then yields chunks.
 */
export interface ChatProvider {
  readonly name: string;
  complete(call: ProviderCall): Promise<ProviderCompletion>;
  /**
   * The chunks come from a generator method of the provider, not a generator function made per call: V8 gives
   * every new generator function its own prototype and hidden classes (four new maps per streamed call).
   */
  stream(call: ProviderCall): Promise<AsyncIterable<ProviderChunk>>;
  /**
   * The upstream's own Responses API, where it has one (an OpenAI-compatible upstream; a deployment only when
   * configured with `responses_api: true`). Whether a model's calls use it is the catalogue's choice.
   */
  readonly responses?: ResponsesProvider | undefined;
}

/** One embeddings call, as a provider sees it. */
export interface EmbeddingCall {
  /** The model's name at the provider (`upstream_model` in the catalogue). */
  upstreamModel: string;
  /** The client's request as validated (its `model` is Tessera's id; unknown fields kept for the relay). */
  request: EmbeddingRequest;
  /** The inputs, one an item, as the client sent them (text, or token ids). */
  inputs: (string | number[])[];
  /** The vectors' length: the request's `dimensions`, else the model's. */
  dimensions: number;
  /** The model's own vectors' length (the catalogue's `dimensions`). */
  modelDimensions: number;
  /** How the client wants the vectors: the provider answers in this format whatever its upstream sent. */
  encodingFormat: EncodingFormat;
  /** Counted by Tessera before the call; providers without usage report it back. */
  promptTokens: number;
  signal: AbortSignal;
}

/** The vectors in input order, as floats or (`encoding_format: "base64"`) as base64 strings. */
export interface ProviderEmbeddings {
  embeddings: (number[] | string)[];
  usage: EmbeddingUsage;
}

/** A provider with an embeddings endpoint (Anthropic has none). */
export interface EmbeddingProvider {
  readonly name: string;
  embed(call: EmbeddingCall): Promise<ProviderEmbeddings>;
}

/** One call relayed to an upstream's own `POST /responses` (OpenAI's Responses API), as a provider sees it. */
export interface ResponsesCall {
  /** The model's name at the provider. */
  upstreamModel: string;
  /** The client's request as validated (modules/responses), sent with the upstream's model name and the cap. */
  body: Record<string, unknown>;
  /** Counted by Tessera before the call (the request translated to chat): the upstream's usage wins. */
  promptTokens: number;
  /** The output cap in force, sent as `max_output_tokens` so the model cannot write past the reservation. */
  maxTokens: number;
  signal: AbortSignal;
}

/** An upstream's whole `response` object, and its usage in chat's terms (what the meter settles to). */
export interface RelayedResponse {
  body: Record<string, unknown>;
  usage: Usage | undefined;
}

/** One event of an upstream's Responses stream: its type, its parsed JSON, and the usage it reported. */
export interface RelayedEvent {
  type: string;
  data: Record<string, unknown>;
  /** The event's JSON text as the upstream sent it: relayed unchanged unless the gateway rewrote `data`. */
  json: string;
  /** From `response.completed` (or `incomplete`, `failed`): the upstream's count of the whole call. */
  usage: Usage | undefined;
}

/** An upstream that speaks the Responses API itself (configured so: `responses_api: true`, docs/routing.md). */
export interface ResponsesProvider {
  readonly name: string;
  respond(call: ResponsesCall): Promise<RelayedResponse>;
  /** Resolves once the upstream accepted the call (2xx, an event stream), then yields its events. */
  respondStream(call: ResponsesCall): Promise<AsyncIterable<RelayedEvent>>;
}

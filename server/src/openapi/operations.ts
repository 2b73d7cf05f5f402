import {
  ChatCompletion,
  ChatCompletionRequest,
  CodeAnalyzeRequest,
  CodeAnalyzeResponse,
  CollectionConfig,
  CollectionObject,
  DeletedObject,
  DocumentList,
  DocumentObject,
  EmbeddingList,
  EmbeddingRequest,
  ErrorBody,
  IndexBatchRequest,
  IndexResult,
  ModelList,
  ModelObject,
  ResponseObject,
  ResponseRequest,
  SarifLog,
  SearchRequest,
  SearchResponse,
} from '@tessera/shared';
import { type ZodType, z } from 'zod';

/** One documented REST operation; its schemas are the same zod schemas the server validates with. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  pathParams?: Record<string, string>;
  queryParams?: Record<string, string>;
  request?: { name: string; schema: ZodType };
  response: { name: string; schema: ZodType; description: string; stream?: string };
  /** Error statuses beyond the ones every authenticated endpoint has (400, 401, 403, 429, 500). */
  errors?: number[];
}

export const ERROR_SCHEMA = { name: 'ErrorBody', schema: ErrorBody };

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/v1/models',
    tag: 'Models',
    summary: 'List models',
    description: 'The model catalogue: each model with its context window and what it is best for.',
    response: { name: 'ModelList', schema: ModelList, description: 'The models.' },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    tag: 'Models',
    summary: 'Retrieve a model',
    pathParams: { id: 'The model id (percent-encoded if it contains reserved characters).' },
    response: { name: 'Model', schema: ModelObject, description: 'The model.' },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    tag: 'Chat',
    summary: 'Create a chat completion',
    description:
      "OpenAI-compatible. With `stream: true` the answer is Server-Sent Events of `chat.completion.chunk` objects ending with `data: [DONE]`. Live keys consume the token allowance; test keys are served by the simulator. The `x-tessera-provider` response header names the provider that answered (`simulator`, or the upstream; for a model routed across deployments, the deployment); simulated answers and chunks carry `system_fingerprint: tessera-sim-<revision>`, an upstream's is relayed as sent. For a key with the response cache on (`cacheTtlSeconds`; docs/caching.md) `x-tessera-cache: hit|miss` says whether the answer came from the cache (a hit costs nothing); a request may send `x-tessera-cache: no-cache` (ask the model, store its answer) or `no-store` (bypass the cache).",
    request: { name: 'CreateChatCompletionRequest', schema: ChatCompletionRequest },
    response: {
      name: 'CreateChatCompletionResponse',
      schema: ChatCompletion,
      description: 'The completion.',
      stream: 'Server-Sent Events: `data: {chat.completion.chunk}` lines, then `data: [DONE]`.',
    },
    errors: [404, 502, 503],
  },
  {
    method: 'post',
    path: '/v1/embeddings',
    tag: 'Embeddings',
    summary: 'Create embeddings',
    description:
      "OpenAI-compatible. `input` is a string, an array of up to 2,048 strings, an array of token ids or an array of token-id arrays; each input at most the model's `context_window` tokens, all together at most 300,000 (400 `context_length_exceeded`, `max_tokens_per_request`). `encoding_format: base64` gives each vector as the base64 of its little-endian float32s; `dimensions` shortens the vectors of models whose catalogue entry has `accepts_dimensions`. The model must be an embedding model (`type: embedding` in GET /v1/models); a chat model is a 400 naming it. Live keys are relayed to the model's OpenAI-compatible upstream and consume the token allowance; test keys get the simulator's deterministic unit vectors. `x-tessera-provider` names the provider that answered.",
    request: { name: 'CreateEmbeddingRequest', schema: EmbeddingRequest },
    response: {
      name: 'CreateEmbeddingResponse',
      schema: EmbeddingList,
      description: 'The embeddings, in input order.',
    },
    errors: [404, 502, 503],
  },
  {
    method: 'post',
    path: '/v1/responses',
    tag: 'Responses',
    summary: 'Create a model response',
    description:
      "OpenAI's Responses API (what Codex and the Agents SDK speak), answered by translating it to a chat completion, so every model of the catalogue, the simulator, limits, allowance, budgets and metering are chat's (key scope `chat`). `input` is a string or a list of items: messages (`input_text`, `input_image` by URL; `output_text` for earlier assistant turns), `function_call` and `function_call_output` items (a tool loop), `reasoning` items (accepted, left out). `instructions` become the system message; `tools` are function tools; `text.format` is `json_schema` or `json_object`; `max_output_tokens` is the completion cap (at least 16). The answer is a `response` (`resp_…`) whose `output` holds a `message` with `output_text`, `function_call` items and, from upstreams that show it, a `reasoning` item; `status` is `incomplete` at the cap. With `stream: true`, Server-Sent Events with `event:` names: `response.created`, `response.in_progress`, per item `response.output_item.added`, `response.content_part.added`, `response.output_text.delta` (or `response.function_call_arguments.delta`), their `…done` events, then `response.completed`; a failure after the stream opened is an `error` event and `response.failed`. Nothing is stored: `store: true`, `previous_response_id`, `conversation`, `background: true`, `prompt` and hosted tools are a 400 naming the parameter.",
    request: { name: 'CreateResponse', schema: ResponseRequest },
    response: {
      name: 'Response',
      schema: ResponseObject,
      description: 'The response.',
      stream:
        'Server-Sent Events: `event: <type>` and `data: {…, "sequence_number": n}` for each event, ending with `response.completed`, `response.incomplete` or `response.failed`.',
    },
    errors: [404, 502, 503],
  },
  {
    method: 'post',
    path: '/api/code/analyze',
    tag: 'Code analysis',
    summary: 'Analyse source code: one file, or a project',
    description:
      'Complexity metrics (cyclomatic as ESLint/lizard count it, cognitive per SonarSource, Halstead, maintainability index), bug findings and security findings with taint tracking through the functions called, parsed with tree-sitter in worker threads. Code that does not fully parse is analysed and marked partial. Send `code` for one file (a `code.analysis`), or `files` (up to 200, CODE_ANALYSIS_MAX_BYTES together) for a project analysed as one job (a `code.project_analysis`): a function defined in one file that passes its argument to a sink, or sanitises it, counts where another file calls it (by import, module or declaring type); findings carry their `path`, and trace steps theirs when a trace crosses files; metrics are per file. 413 when the code (all the files together) is over the limit; 400 `analysis_too_complex` when an analysis is over its bounds or time limit.',
    request: { name: 'CodeAnalyzeRequest', schema: CodeAnalyzeRequest },
    response: {
      name: 'CodeAnalyzeResponse',
      schema: z.union([CodeAnalyzeResponse, SarifLog]),
      description:
        'The analysis: `code.analysis` for `code`, `code.project_analysis` for `files`; with `format: "sarif"`, a SARIF 2.1.0 log of the findings.',
    },
    // 503 analysis_busy when the worker pool's queue is full.
    errors: [503],
  },
  {
    method: 'post',
    path: '/api/documents',
    tag: 'Documents',
    summary: 'Add or replace documents',
    description: 'One document or a batch, atomically; searchable as soon as the call returns.',
    request: { name: 'IndexBatchRequest', schema: IndexBatchRequest },
    response: { name: 'IndexResult', schema: IndexResult, description: 'What was indexed.' },
  },
  {
    method: 'get',
    path: '/api/documents',
    tag: 'Documents',
    summary: 'List the documents of a collection',
    queryParams: {
      collection: 'Collection (default `default`).',
      limit: '1..100, default 20.',
      cursor: 'From `next_cursor`.',
    },
    response: { name: 'DocumentList', schema: DocumentList, description: 'A page of documents.' },
  },
  {
    method: 'get',
    path: '/api/documents/{id}',
    tag: 'Documents',
    summary: 'Retrieve a document',
    pathParams: { id: 'The document id.' },
    queryParams: { collection: 'Collection (default `default`).' },
    response: { name: 'Document', schema: DocumentObject, description: 'The document.' },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/api/documents/{id}',
    tag: 'Documents',
    summary: 'Delete a document',
    pathParams: { id: 'The document id.' },
    queryParams: { collection: 'Collection (default `default`).' },
    response: { name: 'Deleted', schema: DeletedObject, description: 'Deleted.' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/documents/collections/{collection}',
    tag: 'Documents',
    summary: 'Retrieve a collection',
    pathParams: { collection: 'The collection name.' },
    response: { name: 'Collection', schema: CollectionObject, description: 'The collection.' },
    errors: [404],
  },
  {
    method: 'put',
    path: '/api/documents/collections/{collection}',
    tag: 'Documents',
    summary: 'Configure a collection',
    description: 'Sets the text analysis language (`english` by default, `simple` for code and identifiers).',
    pathParams: { collection: 'The collection name.' },
    request: { name: 'CollectionConfig', schema: CollectionConfig },
    response: { name: 'Collection', schema: CollectionObject, description: 'The collection.' },
  },
  {
    method: 'delete',
    path: '/api/documents/collections/{collection}',
    tag: 'Documents',
    summary: 'Delete a collection and its documents',
    pathParams: { collection: 'The collection name.' },
    response: { name: 'Deleted', schema: DeletedObject, description: 'Deleted.' },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/search',
    tag: 'Search',
    summary: 'Search indexed documents',
    description:
      'Keyword mode (stemming, stop words, "quoted phrases", -exclusion, OR) ranked BM25-style, or fuzzy (trigram) mode; snippets mark matches with <mark> and HTML-escape the rest.',
    request: { name: 'SearchRequest', schema: SearchRequest },
    response: { name: 'SearchResponse', schema: SearchResponse, description: 'Ranked results.' },
  },
];

import { readFileSync } from 'node:fs';
import type { ModelObject } from '@tessera/shared';
import { z } from 'zod';
import { ServiceError } from '../../errors';
import { serverPath } from '../../lib/paths';
import { RoutedFields } from '../routing/schema';
import { Currency, PriceHistory, PriceTable } from './pricing';

export const DEFAULT_MODELS_FILE = serverPath('config/models.json');

/** One chat model as configured: the public id, where it is served, and what it is for. */
export const ModelEntry = z.object({
  id: z.string().min(1),
  /** Absent or `chat`: a model of `POST /v1/chat/completions`. */
  type: z.literal('chat').optional(),
  provider: z.string().min(1),
  upstream_model: z.string().min(1),
  context_window: z.number().int().positive(),
  max_output_tokens: z.number().int().positive(),
  description: z.string(),
  created: z.number().int().nonnegative(),
  /** A model id to try when this one's provider fails before the first byte. */
  fallback: z.string().optional(),
  /**
   * The field that carries the completion cap to an OpenAI-compatible upstream: `max_tokens` (the default: what
   * vLLM, Ollama, llama.cpp, LM Studio and most servers read) or `max_completion_tokens` (OpenAI's reasoning
   * models refuse `max_tokens`).
   */
  max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  /**
   * The `openai` upstream serving this model speaks OpenAI's Responses API itself: `POST /v1/responses` calls of
   * live keys are relayed to its `POST /responses` rather than translated to chat completions (docs/routing.md).
   * A routed model says it on each deployment instead.
   */
  responses_api: z.boolean().optional(),
  /** Prices per million tokens by day (pricing.ts); a model without them is metered without a cost. */
  pricing: PriceHistory.optional(),
  /**
   * Where the model is served when more than one upstream serves it: `deployments` (provider, base URL, key
   * variable, weight, own RPM/TPM) and `routing` (strategy, attempt timeout, circuit breaker). Without them,
   * `provider` serves it (modules/routing/README.md).
   */
  ...RoutedFields,
});
export type ModelEntry = z.infer<typeof ModelEntry>;

/**
 * One embedding model as configured (`"type": "embedding"`): its vectors' length and its longest input in
 * tokens (`context_window`). No fallback: another model's vectors live in another space, and mixing them into
 * a client's index would corrupt its search without a word.
 */
export const EmbeddingModelEntry = z.object({
  id: z.string().min(1),
  type: z.literal('embedding'),
  provider: z
    .string()
    .min(1)
    .refine((p) => p !== 'anthropic', {
      message: "Anthropic has no embeddings endpoint; serve embedding models from 'openai' or 'simulator'",
    }),
  upstream_model: z.string().min(1),
  context_window: z.number().int().positive(),
  dimensions: z.number().int().positive(),
  /** Whether the model takes `dimensions` (a shorter vector), as OpenAI's text-embedding-3 models do. */
  accepts_dimensions: z.boolean().default(false),
  description: z.string(),
  created: z.number().int().nonnegative(),
  /** Prices per million input tokens by day (pricing.ts; `output` 0): embeddings bill their input only. */
  pricing: PriceHistory.optional(),
});
export type EmbeddingModelEntry = z.infer<typeof EmbeddingModelEntry>;

const CatalogueFile = z.object({
  currency: Currency.default('USD'),
  models: z.array(z.record(z.string(), z.unknown())).min(1),
});

/** A file entry as the schema of its type reads it; every problem as `models.<i>.<field>: <message>`. */
function parseEntry(
  raw: Record<string, unknown>,
  index: number,
  issues: string[],
): ModelEntry | EmbeddingModelEntry | undefined {
  if (raw.type === 'embedding' && (raw.deployments !== undefined || raw.routing !== undefined)) {
    issues.push(`models.${index}.deployments: embedding models are not routed across deployments`);
  }
  if (raw.responses_api === true && (raw.type === 'embedding' || raw.provider !== 'openai')) {
    issues.push(
      `models.${index}.responses_api: only a chat model served by an OpenAI-compatible upstream (provider 'openai') can speak the Responses API`,
    );
  }
  const parsed = raw.type === 'embedding' ? EmbeddingModelEntry.safeParse(raw) : ModelEntry.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const i of parsed.error.issues) issues.push(`models.${index}.${i.path.join('.')}: ${i.message}`);
  return undefined;
}

export class ModelCatalogue {
  private readonly byId: Map<string, ModelEntry>;
  private readonly embeddingsById: Map<string, EmbeddingModelEntry>;
  /** Each priced model's prices, what a request's cost is computed from. */
  readonly prices: PriceTable;

  /** `entries`: the chat models; `embeddingEntries`: the embedding models; `currency`: of every price. */
  constructor(
    readonly entries: ModelEntry[],
    readonly embeddingEntries: EmbeddingModelEntry[] = [],
    currency = 'USD',
  ) {
    this.byId = new Map(entries.map((m) => [m.id, m]));
    this.embeddingsById = new Map(embeddingEntries.map((m) => [m.id, m]));
    this.prices = new PriceTable(
      currency,
      [...entries, ...embeddingEntries].flatMap((m) => (m.pricing ? [[m.id, m.pricing] as const] : [])),
    );
  }

  static fromFile(path: string = DEFAULT_MODELS_FILE): ModelCatalogue {
    const file = CatalogueFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    const issues = file.success ? [] : file.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    const chat: ModelEntry[] = [];
    const embedding: EmbeddingModelEntry[] = [];
    const seen = new Set<string>();
    for (const [index, raw] of (file.data?.models ?? []).entries()) {
      const entry = parseEntry(raw, index, issues);
      if (!entry) continue;
      if (seen.has(entry.id))
        issues.push(`models.${index}.id: '${entry.id}' is already the id of another model`);
      seen.add(entry.id);
      if (entry.type === 'embedding') embedding.push(entry);
      else chat.push(entry);
    }
    if (issues.length > 0) throw new Error(`Invalid model catalogue ${path}: ${issues.join('; ')}`);
    return new ModelCatalogue(chat, embedding, file.data?.currency);
  }

  find(id: string): ModelEntry | undefined {
    return this.byId.get(id);
  }

  /** The chat model or a 404 `model_not_found` in OpenAI's words (a 400 for an embedding model). */
  require(id: string, param = 'model'): ModelEntry {
    const entry = this.byId.get(id);
    if (entry) return entry;
    if (this.embeddingsById.has(id)) {
      throw new ServiceError(
        'invalid_request',
        `The model '${id}' is an embedding model, which does not answer chat completions: send it to POST /v1/embeddings. Chat models: ${[...this.byId.keys()].join(', ')}.`,
        { param, code: 'model_not_supported' },
      );
    }
    throw new ServiceError(
      'not_found',
      `The model '${id}' does not exist or you do not have access to it. Available models: ${[...this.byId.keys()].join(', ')}.`,
      { param, code: 'model_not_found' },
    );
  }

  /**
   * The embedding model, a 400 for a chat model (naming why: Anthropic's models have no embeddings at all), or
   * a 404 `model_not_found`.
   */
  requireEmbedding(id: string, param = 'model'): EmbeddingModelEntry {
    const entry = this.embeddingsById.get(id);
    if (entry) return entry;
    const available = this.embeddingEntries.length
      ? `Embedding models: ${[...this.embeddingsById.keys()].join(', ')}.`
      : 'This server has no embedding model in its catalogue.';
    const chat = this.byId.get(id);
    if (chat) {
      const why =
        chat.provider === 'anthropic'
          ? `is served by Anthropic, which has no embeddings endpoint`
          : 'is a chat model, not an embedding model';
      throw new ServiceError('invalid_request', `The model '${id}' ${why}. ${available}`, {
        param,
        code: 'model_not_supported',
      });
    }
    throw new ServiceError(
      'not_found',
      `The model '${id}' does not exist or you do not have access to it. ${available}`,
      { param, code: 'model_not_found' },
    );
  }

  /** A model of either type, for GET /v1/models/{id}. */
  findAny(id: string): ModelEntry | EmbeddingModelEntry | undefined {
    return this.byId.get(id) ?? this.embeddingsById.get(id);
  }
}

/** The public shape of a model; `ownedBy` says who serves it (e.g. `tessera-simulator`). */
export function toModelObject(entry: ModelEntry | EmbeddingModelEntry, ownedBy: string): ModelObject {
  const common = {
    id: entry.id,
    object: 'model' as const,
    created: entry.created,
    owned_by: ownedBy,
    context_window: entry.context_window,
    description: entry.description,
  };
  if (entry.type === 'embedding') {
    return {
      ...common,
      type: 'embedding',
      dimensions: entry.dimensions,
      accepts_dimensions: entry.accepts_dimensions,
    };
  }
  return { ...common, type: 'chat', max_output_tokens: entry.max_output_tokens };
}

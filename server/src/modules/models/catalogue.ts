import { readFileSync } from 'node:fs';
import type { ModelObject } from '@tessera/shared';
import { z } from 'zod';
import { ServiceError } from '../../errors';
import { serverPath } from '../../lib/paths';
import { Currency, PriceHistory, PriceTable } from './pricing';

export const DEFAULT_MODELS_FILE = serverPath('config/models.json');

/** One model as configured: the public id, where it is served, and what it is for. */
export const ModelEntry = z.object({
  id: z.string().min(1),
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
  /** Prices per million tokens by day (pricing.ts); a model without them is metered without a cost. */
  pricing: PriceHistory.optional(),
});
export type ModelEntry = z.infer<typeof ModelEntry>;

const CatalogueFile = z.object({ currency: Currency.default('USD'), models: z.array(ModelEntry).min(1) });

export class ModelCatalogue {
  private readonly byId: Map<string, ModelEntry>;
  /** Each priced model's prices, what a request's cost is computed from. */
  readonly prices: PriceTable;

  constructor(
    readonly entries: ModelEntry[],
    currency = 'USD',
  ) {
    this.byId = new Map(entries.map((m) => [m.id, m]));
    this.prices = new PriceTable(
      currency,
      entries.flatMap((m) => (m.pricing ? [[m.id, m.pricing] as const] : [])),
    );
  }

  static fromFile(path: string = DEFAULT_MODELS_FILE): ModelCatalogue {
    const parsed = CatalogueFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new Error(`Invalid model catalogue ${path}: ${issues}`);
    }
    return new ModelCatalogue(parsed.data.models, parsed.data.currency);
  }

  find(id: string): ModelEntry | undefined {
    return this.byId.get(id);
  }

  /** The model or a 404 `model_not_found` in OpenAI's words. */
  require(id: string, param = 'model'): ModelEntry {
    const entry = this.byId.get(id);
    if (!entry) {
      throw new ServiceError(
        'not_found',
        `The model '${id}' does not exist or you do not have access to it. Available models: ${[...this.byId.keys()].join(', ')}.`,
        { param, code: 'model_not_found' },
      );
    }
    return entry;
  }
}

/** The public shape of a model; `ownedBy` says who serves it (e.g. `tessera-simulator`). */
export function toModelObject(entry: ModelEntry, ownedBy: string): ModelObject {
  return {
    id: entry.id,
    object: 'model',
    created: entry.created,
    owned_by: ownedBy,
    context_window: entry.context_window,
    max_output_tokens: entry.max_output_tokens,
    description: entry.description,
  };
}

import { ServiceError } from '../../errors';
import type { EmbeddingModelEntry, ModelEntry } from '../models';
import type { ModelOwnership } from '../models/list';
import { AnthropicProvider } from './anthropic';
import type { UpstreamTarget } from './http';
import { OpenAiCompatibleProvider } from './openai-compatible';
import { SimulatorProvider } from './simulator';
import type { ChatProvider, EmbeddingProvider } from './types';

export interface ProviderConfig extends UpstreamTarget {
  kind: 'openai' | 'anthropic';
}

export interface ProvidersOptions {
  upstreams: ProviderConfig[];
  simulatorTokenDelayMs: number;
  /** Live keys on a model without its upstream get the simulator (true) or no provider at all (production). */
  simulateUnconfigured?: boolean;
}

/** The environment that configures each provider the catalogue can name (providers/config.ts). */
const PROVIDER_VARIABLES: Record<string, string> = {
  openai: 'OPENAI_API_KEY, or OPENAI_BASE_URL for a local server',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** An upstream's provider by its kind: the registry's own, and each deployment's (modules/routing). */
export function upstreamProvider(config: ProviderConfig): OpenAiCompatibleProvider | AnthropicProvider {
  return config.kind === 'anthropic' ? new AnthropicProvider(config) : new OpenAiCompatibleProvider(config);
}

export const SIMULATOR_OWNER = 'tessera-simulator';
export const SIMULATOR_FALLBACK_OWNER = 'tessera-simulator (no upstream configured)';

function isRouted(entry: ModelEntry | EmbeddingModelEntry): boolean {
  return entry.type !== 'embedding' && entry.deployments !== undefined;
}

/** The configured providers and the rule that picks one for a model and a key. */
export class ProviderRegistry implements ModelOwnership {
  readonly simulator: SimulatorProvider;
  private readonly upstreams = new Map<string, OpenAiCompatibleProvider | AnthropicProvider>();
  /** Whether live keys on a model without its upstream get the simulator (else a 503 naming the configuration). */
  readonly simulatesUnconfigured: boolean;

  constructor(options: ProvidersOptions) {
    this.simulator = new SimulatorProvider(options.simulatorTokenDelayMs);
    this.simulatesUnconfigured = options.simulateUnconfigured ?? true;
    for (const u of options.upstreams) {
      this.upstreams.set(u.name, upstreamProvider(u));
    }
  }

  /**
   * Test keys always get the simulator; live keys get the model's upstream, else the simulator (outside
   * production), else nothing: `unconfiguredError` says why.
   */
  forModel(entry: ModelEntry, mode: 'live' | 'test'): ChatProvider | undefined {
    if (mode === 'test' || entry.provider === 'simulator') return this.simulator;
    return this.upstreams.get(entry.provider) ?? (this.simulatesUnconfigured ? this.simulator : undefined);
  }

  /**
   * As `forModel`, for an embedding model. Anthropic, which has no embeddings endpoint, never serves one (the
   * catalogue refuses such an entry at start-up).
   */
  forEmbeddingModel(entry: EmbeddingModelEntry, mode: 'live' | 'test'): EmbeddingProvider | undefined {
    if (mode === 'test' || entry.provider === 'simulator') return this.simulator;
    const upstream = this.upstreams.get(entry.provider);
    if (upstream instanceof OpenAiCompatibleProvider) return upstream;
    return upstream || !this.simulatesUnconfigured ? undefined : this.simulator;
  }

  /** The 503 for a live key on a model whose provider this server has no configuration for (production). */
  unconfiguredError(entry: ModelEntry | EmbeddingModelEntry): ServiceError {
    const variables = PROVIDER_VARIABLES[entry.provider];
    return new ServiceError(
      'unavailable',
      `Model '${entry.id}' is served by the '${entry.provider}' provider, which is not configured on this server` +
        `${variables ? ` (set ${variables})` : ''}. Live keys are never answered by the simulator in production; test keys are.`,
      { code: 'provider_not_configured', retryable: false },
    );
  }

  /** What `owned_by` says: the provider serving live keys, stated plainly when it is the simulator. */
  ownerOf(entry: ModelEntry | EmbeddingModelEntry): string {
    if (entry.provider === 'simulator') return SIMULATOR_OWNER;
    // A model routed across deployments (modules/routing) is served by them, each configured with its key.
    if (this.upstreams.has(entry.provider) || isRouted(entry)) return entry.provider;
    return this.simulatesUnconfigured ? SIMULATOR_FALLBACK_OWNER : `${entry.provider} (not configured)`;
  }

  /** Catalogue models whose provider is not configured, served by the simulator for live keys (for the banner). */
  simulated(entries: (ModelEntry | EmbeddingModelEntry)[]): string[] {
    return entries.filter((e) => !this.upstreams.has(e.provider) && !isRouted(e)).map((e) => e.id);
  }

  names(): string[] {
    return [...this.upstreams.keys()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((p) => p.close()));
  }
}

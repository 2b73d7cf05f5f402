import type { ModelEntry } from '../models';
import type { ModelOwnership } from '../models/list';
import { AnthropicProvider } from './anthropic';
import type { UpstreamTarget } from './http';
import { OpenAiCompatibleProvider } from './openai-compatible';
import { SimulatorProvider } from './simulator';
import type { ChatProvider } from './types';

export interface ProviderConfig extends UpstreamTarget {
  kind: 'openai' | 'anthropic';
}

export interface ProvidersOptions {
  upstreams: ProviderConfig[];
  simulatorTokenDelayMs: number;
}

export const SIMULATOR_OWNER = 'tessera-simulator';
export const SIMULATOR_FALLBACK_OWNER = 'tessera-simulator (no upstream configured)';

/** The configured providers and the rule that picks one for a model and a key. */
export class ProviderRegistry implements ModelOwnership {
  readonly simulator: SimulatorProvider;
  private readonly upstreams = new Map<string, OpenAiCompatibleProvider | AnthropicProvider>();

  constructor(options: ProvidersOptions) {
    this.simulator = new SimulatorProvider(options.simulatorTokenDelayMs);
    for (const u of options.upstreams) {
      this.upstreams.set(
        u.name,
        u.kind === 'anthropic' ? new AnthropicProvider(u) : new OpenAiCompatibleProvider(u),
      );
    }
  }

  /** Test keys always get the simulator; live keys get the model's upstream, or the simulator when it has none. */
  forModel(entry: ModelEntry, mode: 'live' | 'test'): ChatProvider {
    if (mode === 'test') return this.simulator;
    return this.upstreams.get(entry.provider) ?? this.simulator;
  }

  /** What `owned_by` says: the provider serving live keys, stated plainly when it is the simulator. */
  ownerOf(entry: ModelEntry): string {
    if (entry.provider === 'simulator') return SIMULATOR_OWNER;
    return this.upstreams.has(entry.provider) ? entry.provider : SIMULATOR_FALLBACK_OWNER;
  }

  /** Catalogue models whose provider is not configured, served by the simulator for live keys (for the banner). */
  simulated(entries: ModelEntry[]): string[] {
    return entries.filter((e) => !this.upstreams.has(e.provider)).map((e) => e.id);
  }

  names(): string[] {
    return [...this.upstreams.keys()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((p) => p.close()));
  }
}

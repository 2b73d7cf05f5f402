import type { EmbeddingModelEntry, ModelEntry } from '../models';
import type { ProviderRegistry } from './registry';

/**
 * The start-up notice when live keys would get simulated answers: an operator must never mistake the simulator
 * for a real model. Undefined when every model has its upstream.
 */
export function simulatorNotice(
  providers: ProviderRegistry,
  entries: (ModelEntry | EmbeddingModelEntry)[],
): string | undefined {
  const simulated = providers.simulated(entries);
  if (simulated.length === 0) return undefined;
  const configured = providers.names();
  const served = providers.simulatesUnconfigured
    ? 'LIVE keys on these models are answered by the built-in simulator (deterministic text, not a real model)'
    : 'LIVE keys on these models get 503 provider_not_configured (NODE_ENV=production); test keys get the simulator';
  return [
    `No upstream provider is configured for ${simulated.join(', ')}: ${served}.`,
    'Set OPENAI_BASE_URL/OPENAI_API_KEY or ANTHROPIC_API_KEY to serve them for real.',
    `Configured upstreams: ${configured.length ? configured.join(', ') : 'none'}.`,
  ].join('\n  ');
}

import type { ProviderConfig } from './registry';

/** The chat path's settings, from the environment (parsed in env.ts). */
export interface ChatConfig {
  upstreams: ProviderConfig[];
  /** The environment's `*_API_KEY` variables by name: the keys the catalogue's deployments name (modules/routing). */
  upstreamKeys: Readonly<Record<string, string>>;
  simulatorTokenDelayMs: number;
  keepAliveMs: number;
  /** How long a streaming client may leave its full connection unread before it is cut off. */
  clientStallMs: number;
  retries: number;
  retryBackoffMs: number;
  /**
   * Whether live keys on a model whose provider is not configured get the simulator (development, tests) or a 503
   * naming the missing configuration (production, where a simulated answer would pass for a real one).
   */
  simulateUnconfigured: boolean;
}

interface ChatEnv {
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_API_KEY?: string | undefined;
  ANTHROPIC_BASE_URL?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
  SIMULATOR_TOKEN_DELAY_MS: number;
  STREAM_KEEPALIVE_MS: number;
  STREAM_CLIENT_STALL_MS: number;
  UPSTREAM_RETRIES: number;
  UPSTREAM_RETRY_BACKOFF_MS: number;
  NODE_ENV: 'development' | 'production' | 'test';
  UPSTREAM_API_KEYS: Record<string, string>;
}

/**
 * A provider is configured by its key or its URL: a key alone means the vendor's own API; a URL alone suits local
 * servers (Ollama, vLLM, llama.cpp) that need no key. Catalogue entries name providers `openai` and `anthropic`.
 */
export function chatConfigFromEnv(env: ChatEnv): ChatConfig {
  const upstreams: ProviderConfig[] = [];
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    upstreams.push({
      kind: 'openai',
      name: 'openai',
      baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: env.OPENAI_API_KEY,
    });
  }
  if (env.ANTHROPIC_BASE_URL || env.ANTHROPIC_API_KEY) {
    upstreams.push({
      kind: 'anthropic',
      name: 'anthropic',
      baseUrl: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
      apiKey: env.ANTHROPIC_API_KEY,
    });
  }
  return {
    upstreams,
    upstreamKeys: env.UPSTREAM_API_KEYS,
    simulatorTokenDelayMs: env.SIMULATOR_TOKEN_DELAY_MS,
    keepAliveMs: env.STREAM_KEEPALIVE_MS,
    clientStallMs: env.STREAM_CLIENT_STALL_MS,
    retries: env.UPSTREAM_RETRIES,
    retryBackoffMs: env.UPSTREAM_RETRY_BACKOFF_MS,
    simulateUnconfigured: env.NODE_ENV !== 'production',
  };
}

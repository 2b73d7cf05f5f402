import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger';
import { allowsModel, type Principal } from '../keys';
import type { ModelCatalogue, ModelEntry } from '../models';
import { type ChatProvider, isRetryable, type ProviderRegistry } from '../providers';
import type { PreparedChat } from './prepare';
import { fitsModel } from './prepare';

export interface RetryPolicy {
  /** Extra attempts on the same model after a retryable failure. */
  retries: number;
  /** First backoff; doubled on each retry, with jitter. */
  backoffMs: number;
}

export interface AttemptTarget {
  entry: ModelEntry;
  provider: ChatProvider;
}

/**
 * The model, then its fallback when one is configured and still fits the prompt; a model whose provider has no
 * configuration (production) is left out, and with none left the call is refused naming what is missing.
 */
function targetsOf(
  prepared: PreparedChat,
  principal: Principal,
  catalogue: ModelCatalogue,
  providers: ProviderRegistry,
): AttemptTarget[] {
  const targets: AttemptTarget[] = [];
  const add = (entry: ModelEntry) => {
    const provider = providers.forModel(entry, principal.mode);
    if (provider) targets.push({ entry, provider });
  };
  add(prepared.entry);
  const fallback = prepared.entry.fallback ? catalogue.find(prepared.entry.fallback) : undefined;
  if (
    fallback &&
    principal.mode === 'live' &&
    // A key limited to some models is never answered by another one.
    allowsModel(principal, fallback.id) &&
    fitsModel(fallback, prepared.promptTokens, prepared.maxTokens, prepared.explicitCap)
  ) {
    add(fallback);
  }
  if (targets.length === 0) throw providers.unconfiguredError(prepared.entry);
  return targets;
}

/** What withRetries needs of a call (built by `attemptOptions` in deps.ts). */
export interface AttemptOptions {
  prepared: PreparedChat;
  principal: Principal;
  catalogue: ModelCatalogue;
  providers: ProviderRegistry;
  policy: RetryPolicy;
  signal: AbortSignal;
  logger: Logger;
}

/**
 * Runs `attempt` until it succeeds, retrying retryable failures with backoff and then moving to the fallback model.
 * Callers only use it before anything reached the client, so a retry can never duplicate output.
 * Not p-retry (the server's retry helper elsewhere): it retries a list of targets, not one call; it gives up on
 * the first TypeError as a bug, throws the signal's reason even after an attempt succeeded, and its jitter only
 * lengthens a backoff, where this one spreads it both ways.
 */
export async function withRetries<T>(
  options: AttemptOptions,
  attempt: (target: AttemptTarget) => Promise<T>,
): Promise<{ value: T; target: AttemptTarget }> {
  const { policy, signal } = options;
  let last: unknown;
  for (const target of targetsOf(options.prepared, options.principal, options.catalogue, options.providers)) {
    for (let i = 0; i <= policy.retries; i++) {
      try {
        return { value: await attempt(target), target };
      } catch (err) {
        if (signal.aborted) throw err;
        // Operators see every failed attempt; our messages carry no upstream secret.
        options.logger.warn(
          {
            model: target.entry.id,
            provider: target.provider.name,
            attempt: i + 1,
            err: (err as Error).message,
          },
          'model call failed',
        );
        if (!isRetryable(err)) throw err;
        last = err;
      }
      if (i < policy.retries) {
        const backoff = policy.backoffMs * 2 ** i;
        await sleep(backoff / 2 + Math.random() * backoff, undefined, { signal });
      }
    }
  }
  throw last;
}

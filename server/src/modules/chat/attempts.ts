import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger';
import type { Principal } from '../keys';
import type { ModelEntry } from '../models';
import { type ChatProvider, isRetryable, type ProviderRegistry, type ResponsesProvider } from '../providers';
import { type DeploymentRouter, failsOver } from '../routing';
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
  /**
   * One deployment of a routed model (modules/routing): tried once, the next deployment being its retry, and
   * moved on from on what `failsOver` says (its own credentials refused, too).
   */
  routed: boolean;
}

/**
 * The model, then its fallback when one is configured and still fits the prompt; a model whose provider has no
 * configuration (production) is left out, and with none left the call is refused naming what is missing.
 */
/**
 * Whether a live call of `POST /v1/responses` to this model is relayed to its upstreams' own Responses API:
 * every provider that may answer it says it speaks it (the model's `openai` upstream with `responses_api`, or
 * each of its deployments). A model served by some upstreams that do and some that do not is translated, so a
 * failover never has to change protocol mid-call.
 */
export function speaksResponses(
  entry: ModelEntry,
  principal: Principal,
  providers: ProviderRegistry,
): boolean {
  if (principal.mode !== 'live') return false;
  if (entry.deployments !== undefined) return entry.deployments.every((d) => d.responses_api === true);
  return entry.responses_api === true && providers.forModel(entry, 'live')?.responses !== undefined;
}

/** The Responses API of a target, when the catalogue says its upstream speaks it. */
export function responsesOf(target: AttemptTarget): ResponsesProvider | undefined {
  if (!target.routed && target.entry.responses_api !== true) return undefined;
  return target.provider.responses;
}

function targetsOf(
  prepared: PreparedChat,
  principal: Principal,
  providers: ProviderRegistry,
  router: DeploymentRouter | undefined,
  responses: boolean,
): AttemptTarget[] {
  const targets: AttemptTarget[] = [];
  let resting: Error | undefined;
  const add = (entry: ModelEntry) => {
    // routedTargets: a live call to a model with deployments goes to those available, best first.
    if (router !== undefined && principal.mode === 'live' && entry.deployments !== undefined) {
      const deployments = router.order(entry) ?? [];
      for (const provider of deployments) targets.push({ entry, provider, routed: true });
      if (deployments.length === 0) resting ??= router.unavailable(entry);
      return;
    }
    const provider = providers.forModel(entry, principal.mode);
    if (provider) targets.push({ entry, provider, routed: false });
  };
  add(prepared.entry);
  // The fallback the key may use (prepare.ts decides the key's access to models).
  const fallback = prepared.fallback;
  if (
    fallback &&
    principal.mode === 'live' &&
    fitsModel(fallback, prepared.promptTokens, prepared.maxTokens, prepared.explicitCap) &&
    // A relayed Responses call falls back only to a model that speaks the Responses API too.
    (!responses || speaksResponses(fallback, principal, providers))
  ) {
    add(fallback);
  }
  if (targets.length === 0) throw resting ?? providers.unconfiguredError(prepared.entry);
  return targets;
}

/** What withRetries needs of a call (built by `attemptOptions` in deps.ts). */
export interface AttemptOptions {
  prepared: PreparedChat;
  principal: Principal;
  providers: ProviderRegistry;
  policy: RetryPolicy;
  signal: AbortSignal;
  logger: Logger;
  /** The catalogue's routed models (modules/routing); undefined where nothing is routed (unit tests). */
  router: DeploymentRouter | undefined;
  /** A call relayed to the upstreams' own Responses API (modules/responses/relay.ts): its fallback must be too. */
  responses: boolean;
}

/**
 * Runs `attempt` until it succeeds, retrying retryable failures with backoff (a routed model: moving on to its
 * next deployment) and then moving to the fallback model.
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
  const targets = targetsOf(
    options.prepared,
    options.principal,
    options.providers,
    options.router,
    options.responses,
  );
  for (const target of targets) {
    const retries = target.routed ? 0 : policy.retries;
    for (let i = 0; i <= retries; i++) {
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
        if (!(target.routed ? failsOver(err) : isRetryable(err))) throw err;
        last = err;
      }
      if (i < retries) {
        const backoff = policy.backoffMs * 2 ** i;
        await sleep(backoff / 2 + Math.random() * backoff, undefined, { signal });
      }
    }
  }
  throw last;
}

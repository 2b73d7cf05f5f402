import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { TokenAllowance } from '../allowance';
import type { SpendReserver } from '../budgets/types';
import type { Principal } from '../keys';
import type { ModelCatalogue } from '../models';
import type { ProviderCall, ProviderRegistry } from '../providers';
import type { DeploymentRouter } from '../routing';
import type { AttemptOptions, AttemptTarget, RetryPolicy } from './attempts';
import type { PreparedChat } from './prepare';

export interface ChatDeps {
  catalogue: ModelCatalogue;
  providers: ProviderRegistry;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  keepAliveMs: number;
  retry: RetryPolicy;
  /** The catalogue's models routed across deployments (modules/routing). */
  router?: DeploymentRouter | undefined;
}

/** What a call's abort offers: AbortController's shape. */
export interface CallAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/** One chat call from one authenticated client. */
export interface ChatCall {
  principal: Principal;
  /** The monthly token allowance the call reserves from and settles to (modules/allowance). */
  allowance: TokenAllowance;
  /** Money budgets the call reserves its worst-case cost from (modules/budgets); none in tests that need none. */
  spend?: SpendReserver;
  prepared: PreparedChat;
  /**
   * The call's abort: the transport aborts it when the client goes away, and the call's deadline aborts it
   * when the model stays silent too long (one controller a call, not one each). The REST route passes a
   * CallAbortController (lib/call-abort.ts), which Node's AbortController would also satisfy.
   */
  abort: CallAbort;
  /**
   * Told the provider's name (`simulator`, or the upstream's configured name) before each attempt, so the last
   * one named is the provider that answered, or that failed last (for the `x-tessera-provider` header).
   */
  onProvider: (name: string) => void;
}

export function providerCall(
  prepared: PreparedChat,
  target: AttemptTarget,
  signal: AbortSignal,
): ProviderCall {
  return {
    upstreamModel: target.entry.upstream_model,
    request: prepared.request,
    promptTokens: prepared.promptTokens,
    maxTokens: prepared.maxTokens,
    maxTokensField: target.entry.max_tokens_field ?? 'max_tokens',
    signal,
  };
}

/**
 * withRetries' options for one call, written out field by field. Not `{ ...deps, prepared, … }`: on Node.js 20
 * an object made by a leading spread has a hidden class outside V8's transition tree, so every property added
 * after the spread makes a new hidden class and descriptor array, for every call (five per call here, found
 * with --log-maps), which also left the property loads that see them megamorphic.
 */
export function attemptOptions(
  deps: ChatDeps,
  call: ChatCall,
  signal: AbortSignal,
  responses = false,
): AttemptOptions {
  return {
    prepared: call.prepared,
    principal: call.principal,
    providers: deps.providers,
    policy: deps.retry,
    signal,
    logger: deps.logger,
    router: deps.router,
    responses,
  };
}

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

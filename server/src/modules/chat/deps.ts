import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { TokenAllowance } from '../allowance';
import type { Principal } from '../keys';
import type { ModelCatalogue } from '../models';
import type { ProviderCall, ProviderRegistry } from '../providers';
import type { AttemptTarget, RetryPolicy } from './attempts';
import type { MeteredUsage } from './meter';
import type { PreparedChat } from './prepare';

export interface ChatDeps {
  catalogue: ModelCatalogue;
  providers: ProviderRegistry;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  keepAliveMs: number;
  retry: RetryPolicy;
}

/** One chat call from one authenticated client. */
export interface ChatCall {
  principal: Principal;
  /** The allowance in force (read from the services at call time: issue 4 replaces the placeholder). */
  allowance: TokenAllowance;
  prepared: PreparedChat;
  /**
   * The call's abort: the transport aborts it when the client goes away, and the call's deadline aborts it
   * when the model stays silent too long (one controller a call, not one each).
   */
  abort: AbortController;
  /** Receives the usage once the call is over, however it ended. */
  onUsage: (usage: MeteredUsage) => void;
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
    signal,
  };
}

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

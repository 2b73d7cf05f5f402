import type { EmbeddingList, EmbeddingUsage } from '@tessera/shared';
import pRetry from 'p-retry';
import type { Logger } from '../../logger';
import { type ReservedOutcome, type TokenAllowance, withReservation } from '../allowance';
import type { SpendReserver } from '../budgets/types';
import { type CallAbort, CallDeadline, type MeteredUsage, type RetryPolicy } from '../chat';
import type { Principal } from '../keys';
import type { PriceTable } from '../models/pricing';
import { type EmbeddingProvider, isRetryable, type ProviderRegistry } from '../providers';
import type { PreparedEmbeddings } from './prepare';

export interface EmbeddingDeps {
  providers: ProviderRegistry;
  logger: Logger;
  timeoutMs: number;
  retry: RetryPolicy;
  /** The catalogue's prices, for money budgets (the service passes its catalogue's). */
  prices?: PriceTable;
}

/** One embeddings call from one authenticated client (chat's ChatCall, for embeddings). */
export interface EmbeddingCall {
  principal: Principal;
  allowance: TokenAllowance;
  /** Money budgets the call reserves its cost from (modules/budgets). */
  spend?: SpendReserver;
  prepared: PreparedEmbeddings;
  /** Aborted by the transport when the client leaves, and by the call's deadline (MODEL_TIMEOUT_MS). */
  abort: CallAbort;
  /** Told the provider's name before the call (`x-tessera-provider`). */
  onProvider: (name: string) => void;
}

export type EmbeddingOutcome = ReservedOutcome<EmbeddingList, MeteredUsage>;

/**
 * The provider for the call, or the 503 when a live key's model has no upstream in production. Before the
 * reservation: a call that cannot be made holds nothing.
 */
function providerOf(deps: EmbeddingDeps, call: EmbeddingCall): EmbeddingProvider {
  const { entry } = call.prepared;
  const provider = deps.providers.forEmbeddingModel(entry, call.principal.mode);
  if (!provider) throw deps.providers.unconfiguredError(entry);
  return provider;
}

/**
 * Embeds the inputs: the prompt tokens reserved before (they are the whole cost), settled to what the provider
 * reports after; retryable failures (connection errors, 5xx, 429) retried with backoff within the call's
 * deadline. No fallback model (see EmbeddingModelEntry). A call cut by the timeout, the client or shutdown is
 * charged its prompt: the upstream may have embedded it.
 */
export async function embedInputs(deps: EmbeddingDeps, call: EmbeddingCall): Promise<EmbeddingOutcome> {
  const { prepared } = call;
  const provider = providerOf(deps, call);
  let reported: EmbeddingUsage | undefined;
  let charged = false;
  const at = Date.now();
  const costOf = (tokens: number) => deps.prices?.costMicros(prepared.entry.id, tokens, 0, at) ?? null;
  const spend = call.spend && { reserver: call.spend, maxMicros: costOf(prepared.promptTokens) };
  return withReservation(
    deps,
    { ...call, spend },
    prepared.promptTokens,
    async () => {
      const deadline = new CallDeadline(deps.timeoutMs, call.abort);
      try {
        call.onProvider(provider.name);
        const answer = await pRetry(
          () =>
            provider.embed({
              upstreamModel: prepared.entry.upstream_model,
              request: prepared.request,
              inputs: prepared.inputs,
              dimensions: prepared.dimensions,
              modelDimensions: prepared.entry.dimensions,
              encodingFormat: prepared.encodingFormat,
              promptTokens: prepared.promptTokens,
              signal: deadline.signal,
            }),
          {
            retries: deps.retry.retries,
            minTimeout: deps.retry.backoffMs,
            factor: 2,
            randomize: true,
            signal: deadline.signal,
            shouldRetry: ({ error }) => isRetryable(error),
            onFailedAttempt: ({ error, attemptNumber }) =>
              deps.logger.warn(
                {
                  model: prepared.entry.id,
                  provider: provider.name,
                  attempt: attemptNumber,
                  err: error.message,
                },
                'model call failed',
              ),
          },
        );
        reported = answer.usage;
        return {
          object: 'list' as const,
          data: answer.embeddings.map((embedding, index) => ({
            object: 'embedding' as const,
            index,
            embedding,
          })),
          model: prepared.entry.id,
          usage: answer.usage,
        };
      } catch (err) {
        if (deadline.timedOut || deadline.clientGone || deadline.shutDown) charged = true;
        throw deadline.explain(err);
      } finally {
        deadline.clear();
      }
    },
    async () => {
      const promptTokens = reported?.prompt_tokens ?? (charged ? prepared.promptTokens : 0);
      return {
        usage: { model: prepared.entry.id, promptTokens, completionTokens: 0 },
        tokens: promptTokens,
        costMicros: costOf(promptTokens),
      };
    },
  );
}

import type { Usage } from '@tessera/shared';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import { type ReservedOutcome, type TokenAllowance, withReservation } from '../allowance';
import type { SpendReserver } from '../budgets/types';
import type { Principal } from '../keys';
import type { ModelCatalogue } from '../models';
import { countTokens, countTokensAside } from '../tokenizer';
import { LONG_PROMPT_CHARS, type PreparedChat } from './prepare';

/** What a call consumed, as logs and metering record it. */
export interface MeteredUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Counts one call's tokens whatever way it ends. The provider's usage wins when it reports one; otherwise the
 * text produced so far is counted with the BPE, so an aborted stream is still metered.
 */
export class UsageMeter {
  model: string;
  private reported: Usage | undefined;
  private produced = '';
  /** The count of `produced` as it was `length` characters long. */
  private counted: { length: number; tokens: Promise<number> } | undefined;
  /** Whether the model started working on the prompt (a stream opened, or a call was under way when cut). */
  charged = false;

  constructor(private readonly prepared: PreparedChat) {
    this.model = prepared.entry.id;
  }

  /** The provider's own usage, breakdowns included, when it reported one. */
  get reportedUsage(): Usage | undefined {
    return this.reported;
  }

  report(usage: Usage): void {
    this.reported = usage;
    this.charged = true;
  }

  produce(text: string): void {
    this.produced += text;
  }

  /**
   * What the call consumed. The text a stream produced is counted only when the provider reported no usage (a
   * cut stream, or a provider that never sends it). It can be a long model's whole output, up to a 100K-token
   * answer: beyond LONG_PROMPT_CHARS it is counted off the event loop, as long prompts are.
   */
  async usage(): Promise<MeteredUsage> {
    if (this.reported) {
      return {
        model: this.model,
        promptTokens: this.reported.prompt_tokens,
        completionTokens: this.reported.completion_tokens,
      };
    }
    if (!this.charged) return { model: this.model, promptTokens: 0, completionTokens: 0 };
    const text = this.produced;
    // Asked twice for one stream (its usage chunk, then the settlement): counted once.
    if (this.counted?.length !== text.length) {
      this.counted = {
        length: text.length,
        // The thread's count is the same as countTokens; if it ever failed, the loop counts instead.
        tokens:
          text.length > LONG_PROMPT_CHARS
            ? countTokensAside([text]).then(
                (count) => count.tokens,
                () => countTokens(text),
              )
            : Promise.resolve(countTokens(text)),
      };
    }
    const completionTokens = await this.counted.tokens;
    return { model: this.model, promptTokens: this.prepared.promptTokens, completionTokens };
  }
}

/**
 * How a call ended and what it consumed, however it ended: the transport records the usage, then sends the value
 * or the error (the service never reaches back into the transport).
 */
export type ChatOutcome<T> = ReservedOutcome<T, MeteredUsage>;

/**
 * Reserves the worst case for live keys before the call (the prompt as many times as the upstream may bill it,
 * and the cap for every choice) and settles to the real usage after it, on every path (allowance's
 * withReservation).
 */
export function withAllowance<T>(
  deps: { logger: Logger; catalogue: ModelCatalogue; clock: Clock },
  call: {
    principal: Principal;
    allowance: TokenAllowance;
    spend?: SpendReserver | undefined;
    prepared: PreparedChat;
  },
  run: (meter: UsageMeter) => Promise<T>,
): Promise<ChatOutcome<T>> {
  const { prepared } = call;
  const cap = prepared.maxTokens * (prepared.request.n ?? 1);
  const promptTokens = prepared.promptTokens * prepared.promptCopies;
  const meter = new UsageMeter(prepared);
  const prices = deps.catalogue.prices;
  const at = deps.clock.now();
  // The worst case in money: the prompt and the cap at the dearer of the model and its fallback, which may
  // answer instead.
  const spend = call.spend && {
    reserver: call.spend,
    maxMicros: worstCost(
      [prepared.entry.id, prepared.entry.fallback].map((model) =>
        model === undefined ? null : prices.costMicros(model, promptTokens, cap, at),
      ),
    ),
  };
  return withReservation(
    deps,
    { ...call, spend },
    promptTokens + cap,
    () => run(meter),
    async () => {
      const usage = await meter.usage();
      return {
        usage,
        tokens: usage.promptTokens + usage.completionTokens,
        costMicros: prices.costMicros(usage.model, usage.promptTokens, usage.completionTokens, at),
      };
    },
  );
}

/** The largest of the known costs; null when none is known (an unpriced model). */
function worstCost(costs: (number | null)[]): number | null {
  const known = costs.filter((c): c is number => c !== null);
  return known.length > 0 ? Math.max(...known) : null;
}

import type { SpendScope } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { SpendCounters } from './statements';
import type { SpendTarget } from './targets';

const WHOSE: Record<SpendScope, string> = {
  key: "this API key's",
  member: "the key owner's (member)",
  account: "the organisation's",
};

/** A money amount in micro-units, written in the currency with up to 6 decimals (trailing zeros dropped). */
export function formatMoney(micros: number, currency: string): string {
  const units = (micros / 1_000_000).toFixed(6).replace(/0{1,4}$/, '');
  return `${units} ${currency}`;
}

/**
 * 429 `spend_budget_exceeded` (type `insufficient_quota`, as OpenAI's exhausted quota): retrying before the
 * period resets does not help, so `x-should-retry: false` and `retry-after` to the reset. The message names
 * whose budget, its amount and period, what the call needed and what is left.
 */
export function spendBudgetExceeded(input: {
  target: SpendTarget;
  current: SpendCounters;
  requestedMicros: number;
  currency: string;
  nowMs: number;
}): ServiceError {
  const { target, current, requestedMicros, currency } = input;
  const remaining = Math.max(0, target.amountMicros - current.usedMicros - current.reservedMicros);
  const budget = `${WHOSE[target.scope]} spend budget is ${formatMoney(target.amountMicros, currency)} per ${target.period}`;
  const resets = `It resets at ${target.resetsAt.toISOString().replace('.000Z', 'Z')}.`;
  const message =
    remaining <= 0
      ? `The spend budget is used up: ${budget}. ${resets}`
      : `This request may cost up to ${formatMoney(requestedMicros, currency)} (prompt plus max_tokens at the model's prices) but only ${formatMoney(remaining, currency)} remain: ${budget}. Lower max_tokens, or wait: ${resets}`;
  return new ServiceError('insufficient_quota', message, {
    code: 'spend_budget_exceeded',
    type: 'insufficient_quota',
    retryable: false,
    retryAfterMs: Math.max(1_000, target.resetsAt.getTime() - input.nowMs),
  });
}

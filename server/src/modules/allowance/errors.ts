import { PLAN_LABELS, type Plan } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { AllowancePeriod } from './period';

const fmt = (n: number) => n.toLocaleString('en-US');

/** 429 insufficient_quota: retrying does not help before the reset, so not retryable. */
export function insufficientQuota(input: {
  plan: Plan;
  limit: number;
  remaining: number;
  requested: number;
  period: AllowancePeriod;
  nowMs: number;
}): ServiceError {
  const { plan, limit, remaining, requested, period } = input;
  const resets = `It resets on ${period.resetsAt.toISOString().slice(0, 10)} at 00:00 UTC.`;
  const allowance = `the ${PLAN_LABELS[plan]} plan includes ${fmt(limit)} tokens per month`;
  const message =
    remaining <= 0
      ? `You have used up your monthly token allowance: ${allowance}. ${resets}`
      : `This request needs up to ${fmt(requested)} tokens (prompt plus max_tokens) but only ${fmt(remaining)} of your monthly token allowance remain: ${allowance}. Lower max_tokens, or wait: ${resets}`;
  const retryMs = Math.max(1_000, period.resetsAt.getTime() - input.nowMs);
  return new ServiceError('insufficient_quota', message, {
    code: 'insufficient_quota',
    type: 'insufficient_quota',
    retryable: false,
    retryAfterMs: retryMs,
  });
}

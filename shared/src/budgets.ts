import { z } from 'zod';
import { BudgetPeriod } from './keys';

/** Who a money budget applies to: the whole organisation, one API key, or one member's keys. */
export const SpendScope = z.enum(['account', 'key', 'member']);
export type SpendScope = z.infer<typeof SpendScope>;

/** The thresholds (percent of a budget) at which an alert is raised, once each per period. */
export const BUDGET_ALERT_THRESHOLDS = [50, 80, 100] as const;

/**
 * A budget in money: `amountMicros` millionths of the catalogue's currency (USD by default: 1,000,000 is $1) per
 * UTC day, ISO week (from Monday) or month.
 */
export const SpendBudget = z.object({
  amountMicros: z
    .number({ error: 'amountMicros is a whole number of micro-units of the currency' })
    .int({ error: 'amountMicros is a whole number of micro-units of the currency' })
    .min(1, { error: 'amountMicros must be at least 1' })
    .max(1_000_000_000_000_000, { error: 'amountMicros must be at most 1,000,000,000,000,000' }),
  period: BudgetPeriod,
});
export type SpendBudget = z.infer<typeof SpendBudget>;

/** Sets (or, with `budget: null`, clears) a budget. `subjectId` is the key's or member's id; none for the organisation. */
export const SetSpendBudgetInput = z
  .object({
    scope: SpendScope,
    subjectId: z.string().min(1).max(64).optional(),
    budget: SpendBudget.nullable(),
  })
  .refine((v) => (v.scope === 'account') === (v.subjectId === undefined), {
    error: 'subjectId names the key or member; leave it out for the organisation',
    path: ['subjectId'],
  });
export type SetSpendBudgetInput = z.infer<typeof SetSpendBudgetInput>;

/** The organisation's webhook URL: http or https only. */
export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: 'The webhook URL must be an http:// or https:// URL' })
  .max(2048, { error: 'The webhook URL must be at most 2048 characters' });

export const SetWebhookInput = z.object({ url: WebhookUrl });
export type SetWebhookInput = z.infer<typeof SetWebhookInput>;

import { z } from 'zod';

export const Plan = z.enum(['free', 'pro', 'enterprise']);
export type Plan = z.infer<typeof Plan>;

/** Limits in force for one account: requests per minute and the monthly token allowance. */
export const PlanLimits = z.object({
  requestsPerMinute: z.number().int().positive(),
  monthlyTokens: z.number().int().nonnegative(),
});
export type PlanLimits = z.infer<typeof PlanLimits>;

export const PLAN_LABELS: Record<Plan, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };

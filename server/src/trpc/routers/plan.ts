import { resolveLimits } from '../../modules/plans';
import { allowedProcedure, router } from '../trpc';

/** The signed-in account's plan, limits and live token allowance, for the dashboard's plan page. */
export const planRouter = router({
  status: allowedProcedure('read').query(async ({ ctx }) => {
    const account = ctx.account;
    const limits = resolveLimits(account, ctx.services.ctx.config.planDefaults);
    // The allowance is per account (any key of it); only live usage consumes it, so ask as a live caller.
    const allowance = await ctx.services.allowance.status({
      keyId: 'dashboard',
      accountId: account.id,
      mode: 'live',
      last4: '',
      plan: account.plan,
      limits,
    });
    return {
      plan: account.plan,
      limits,
      allowance: {
        limit: allowance.limit,
        used: allowance.used,
        remaining: allowance.remaining,
        resetsAt: allowance.resetsAt.toISOString(),
      },
    };
  }),
});

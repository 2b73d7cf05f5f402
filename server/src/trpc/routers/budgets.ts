import { SetSpendBudgetInput, SetWebhookInput } from '@tessera/shared';
import { sessionAudit } from '../../http/audit';
import { listBudgetAlerts, listSpendBudgets, setSpendBudget } from '../../modules/budgets';
import { getWebhook, listDeliveries, removeWebhook, setWebhook } from '../../modules/webhooks';
import { allowedProcedure, router } from '../trpc';

/** Money budgets, their alerts and the organisation's webhook, for the dashboard's Budgets page. */
export const budgetsRouter = router({
  list: allowedProcedure('read').query(async ({ ctx }) => ({
    currency: ctx.services.spend.currency,
    budgets: await listSpendBudgets({ ctx: ctx.services.ctx, accountId: ctx.account.id }),
  })),

  /** Sets or (with `budget: null`) clears a budget; this instance applies it at once, the others within a second. */
  set: allowedProcedure('budgets.manage')
    .input(SetSpendBudgetInput)
    .mutation(async ({ ctx, input }) => {
      const view = await setSpendBudget({
        ctx: ctx.services.ctx,
        accountId: ctx.account.id,
        input,
        audit: sessionAudit(ctx.req, ctx.caller.user),
      });
      ctx.services.spend.forget(ctx.account.id);
      return view;
    }),

  alerts: allowedProcedure('read').query(async ({ ctx }) =>
    (await listBudgetAlerts({ ctx: ctx.services.ctx, accountId: ctx.account.id })).map((a) => ({
      ...a,
      createdAt: a.createdAt.toISOString(),
    })),
  ),
});

export const webhooksRouter = router({
  get: allowedProcedure('read').query(({ ctx }) =>
    getWebhook({ ctx: ctx.services.ctx, accountId: ctx.account.id }),
  ),

  /** Sets the URL and makes a new signing secret, returned this once. */
  set: allowedProcedure('webhooks.manage')
    .input(SetWebhookInput)
    .mutation(({ ctx, input }) =>
      setWebhook({
        ctx: ctx.services.ctx,
        box: ctx.services.webhookSecrets,
        accountId: ctx.account.id,
        input,
        audit: sessionAudit(ctx.req, ctx.caller.user),
      }),
    ),

  remove: allowedProcedure('webhooks.manage').mutation(({ ctx }) =>
    removeWebhook({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      audit: sessionAudit(ctx.req, ctx.caller.user),
    }),
  ),

  deliveries: allowedProcedure('read').query(async ({ ctx }) =>
    (await listDeliveries({ ctx: ctx.services.ctx, accountId: ctx.account.id })).map((d) => ({
      id: d.id,
      eventType: d.eventType,
      url: d.url,
      status: d.status,
      attempts: d.attempts,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      createdAt: d.createdAt.toISOString(),
      lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
      nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
    })),
  ),
});

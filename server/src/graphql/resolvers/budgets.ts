import { ServiceError } from '../../errors';
import { listBudgetAlerts, listSpendBudgets } from '../../modules/budgets';
import { listDeliveries } from '../../modules/webhooks';
import type { GraphqlContext } from '../context';
import { toGraphQLError } from '../errors';

const upper = <T extends string>(v: T) => v.toUpperCase() as Uppercase<T>;

/** `first` of a page: 1 to 200, or a 400-like error naming the argument. */
function pageSize(first: number): number {
  if (!Number.isInteger(first) || first < 1 || first > 200)
    throw new ServiceError('invalid_request', `first must be between 1 and 200; got ${first}.`, {
      param: 'first',
      code: 'invalid_value',
    });
  return first;
}

/** budgets, budgetAlerts, webhookDeliveries: thin reads of the caller's own organisation. */
export const budgetResolvers = {
  Query: {
    budgets: async (_: unknown, __: unknown, ctx: GraphqlContext) => {
      try {
        const budgets = await listSpendBudgets({ ctx: ctx.services.ctx, accountId: ctx.account.id });
        return {
          currency: ctx.services.spend.currency,
          budgets: budgets.map((b) => ({
            ...b,
            scope: upper(b.scope),
            period: upper(b.period),
            resetsAt: new Date(b.resetsAt),
          })),
        };
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
    budgetAlerts: async (_: unknown, args: { first: number }, ctx: GraphqlContext) => {
      try {
        const alerts = await listBudgetAlerts({
          ctx: ctx.services.ctx,
          accountId: ctx.account.id,
          limit: pageSize(args.first),
        });
        return alerts.map((a) => ({ ...a, scope: upper(a.scope), period: upper(a.period) }));
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
    webhookDeliveries: async (_: unknown, args: { first: number }, ctx: GraphqlContext) => {
      try {
        const rows = await listDeliveries({
          ctx: ctx.services.ctx,
          accountId: ctx.account.id,
          limit: pageSize(args.first),
        });
        return rows.map((d) => ({
          ...d,
          status: upper(d.status),
          nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
        }));
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
  },
};

import { sessionAudit } from '../../http/audit';
import { removeSampleData } from '../../modules/demo';
import { allowedProcedure, router } from '../trpc';

export const demoRouter = router({
  /** Deletes the account's sample traffic (the demo account's); real usage is kept. */
  removeSampleData: allowedProcedure('sample.remove').mutation(({ ctx }) =>
    removeSampleData({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      audit: sessionAudit(ctx.req, ctx.caller.user),
    }),
  ),
});

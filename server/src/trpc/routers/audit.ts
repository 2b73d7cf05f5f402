import { AuditListInput } from '@tessera/shared';
import { listAuditEvents } from '../../modules/audit';
import { assertCanReadAudit } from '../../modules/teams';
import { protectedProcedure, router } from '../trpc';

export const auditRouter = router({
  /** The organisation's audit log, newest first, by cursor; narrowed by action and time. */
  list: protectedProcedure.input(AuditListInput).query(({ ctx, input }) => {
    assertCanReadAudit(ctx.member);
    return listAuditEvents({ ctx: ctx.services.ctx, accountId: ctx.account.id, input });
  }),
});

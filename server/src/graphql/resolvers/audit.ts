import type { AuditEventView } from '@tessera/shared';
import { listAuditEvents } from '../../modules/audit';
import { assertCanReadAudit, assertKeyCanReadAudit } from '../../modules/teams';
import type { GraphqlContext } from '../context';
import { toGraphQLError } from '../errors';

interface AuditLogArgs {
  first?: number | null;
  after?: string | null;
  action?: string | null;
  from?: Date | null;
  to?: Date | null;
}

/** Viewer.auditLog: the caller's organisation's log, by the one read check (modules/teams/audit-access.ts). */
export const auditResolvers = {
  Viewer: {
    auditLog: async ({ ctx }: { ctx: GraphqlContext }, args: AuditLogArgs) => {
      try {
        if (ctx.member) assertCanReadAudit(ctx.member);
        else if (ctx.principal)
          await assertKeyCanReadAudit(ctx.services.ctx, {
            keyId: ctx.principal.keyId,
            accountId: ctx.account.id,
          });
        else throw new Error('audit log read without a member or a key');
        const page = await listAuditEvents({
          ctx: ctx.services.ctx,
          accountId: ctx.account.id,
          input: {
            first: args.first ?? 20,
            after: args.after ?? null,
            action: (args.action ?? null) as AuditEventView['action'] | null,
            from: args.from?.toISOString() ?? null,
            to: args.to?.toISOString() ?? null,
          },
        });
        return {
          edges: page.events.map(({ cursor, ...event }) => ({
            cursor,
            node: {
              ...event,
              actor: { ...event.actor, kind: event.actor.kind.toUpperCase() },
              details: JSON.stringify(event.details),
            },
          })),
          pageInfo: page.pageInfo,
        };
      } catch (err) {
        throw toGraphQLError(err);
      }
    },
  },
};

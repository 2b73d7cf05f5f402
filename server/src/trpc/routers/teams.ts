import {
  ChangeRoleInput,
  CreateInvitationInput,
  IdInput,
  InvitationTokenInput,
  RemoveMemberInput,
  SwitchOrganisationInput,
} from '@tessera/shared';
import { auditRequestOf, sessionAudit } from '../../http/audit';
import {
  acceptInvitation,
  changeRole,
  createInvitation,
  leaveOrganisation,
  listInvitations,
  listMembers,
  previewInvitation,
  removeMember,
  revokeInvitation,
  switchOrganisation,
} from '../../modules/teams';
import { allowedProcedure, protectedProcedure, publicProcedure, router, userProcedure } from '../trpc';
import { sessionView } from './auth';

/** Organisations, members, roles and invitations; who may do what is modules/teams/permissions.ts. */
export const teamsRouter = router({
  members: allowedProcedure('members.read').query(({ ctx }) =>
    listMembers({ ctx: ctx.services.ctx, accountId: ctx.account.id }),
  ),

  changeRole: allowedProcedure('members.manage')
    .input(ChangeRoleInput)
    .mutation(async ({ ctx, input }) => {
      await changeRole({
        ctx: ctx.services.ctx,
        accountId: ctx.account.id,
        input,
        audit: sessionAudit(ctx.req, ctx.caller.user),
      });
      return { ok: true as const };
    }),

  /** Revokes the member's keys, or hands them to `transferKeysTo`; the member's sessions lose the organisation. */
  removeMember: allowedProcedure('members.manage')
    .input(RemoveMemberInput)
    .mutation(({ ctx, input }) =>
      removeMember({
        ctx: ctx.services.ctx,
        accountId: ctx.account.id,
        input,
        onRevoked: (hash) => ctx.services.keys.forget(hash),
        audit: sessionAudit(ctx.req, ctx.caller.user),
      }),
    ),

  /** Any member may leave, except the last owner. */
  leave: protectedProcedure.mutation(async ({ ctx }) => {
    await leaveOrganisation({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      userId: ctx.member.userId,
      onRevoked: (hash) => ctx.services.keys.forget(hash),
      audit: sessionAudit(ctx.req, ctx.caller.user),
    });
    return { ok: true as const };
  }),

  invitations: allowedProcedure('members.read').query(({ ctx }) =>
    listInvitations({ ctx: ctx.services.ctx, accountId: ctx.account.id }),
  ),

  /** The link's token is in this answer only. */
  invite: allowedProcedure('members.manage')
    .input(CreateInvitationInput)
    .mutation(({ ctx, input }) =>
      createInvitation({
        ctx: ctx.services.ctx,
        accountId: ctx.account.id,
        createdBy: ctx.caller.user,
        input,
        audit: sessionAudit(ctx.req, ctx.caller.user),
      }),
    ),

  revokeInvitation: allowedProcedure('members.manage')
    .input(IdInput)
    .mutation(async ({ ctx, input }) => {
      await revokeInvitation({
        ctx: ctx.services.ctx,
        accountId: ctx.account.id,
        id: input.id,
        audit: sessionAudit(ctx.req, ctx.caller.user),
      });
      return { ok: true as const };
    }),

  /** What the invitation page shows; the token is the only credential, so no session is needed. */
  invitation: publicProcedure
    .input(InvitationTokenInput)
    .query(({ ctx, input }) => previewInvitation({ ctx: ctx.services.ctx, token: input.token })),

  /** The signed-in user joins, and the session switches to the organisation joined. */
  accept: userProcedure.input(InvitationTokenInput).mutation(async ({ ctx, input }) => {
    const accountId = await acceptInvitation({
      ctx: ctx.services.ctx,
      token: input.token,
      user: ctx.user,
      request: auditRequestOf(ctx.req),
    });
    await switchOrganisation({
      ctx: ctx.services.ctx,
      token: ctx.sessionToken,
      userId: ctx.user.id,
      accountId,
    });
    return { ok: true as const, accountId };
  }),

  /** Moves the session to another of the user's organisations; answers with the session as `auth.session` does. */
  switch: userProcedure.input(SwitchOrganisationInput).mutation(async ({ ctx, input }) => {
    const organisation = await switchOrganisation({
      ctx: ctx.services.ctx,
      token: ctx.sessionToken,
      userId: ctx.user.id,
      accountId: input.accountId,
    });
    const view = await sessionView(ctx.services, { user: ctx.user, member: null });
    return { ...view, organisation };
  }),
});

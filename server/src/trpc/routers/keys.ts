import { CreateKeyInput, RevokeKeyInput, RotateKeyInput, UpdateKeyInput } from '@tessera/shared';
import { sessionAudit } from '../../http/audit';
import type { Member } from '../../modules/accounts';
import { createKey, keyOwnership, listKeys, revokeKey, rotateKey, updateKey } from '../../modules/keys';
import { authorize, authorizeKeyChange } from '../../modules/teams';
import { allowedProcedure, protectedProcedure, router, type TrpcContext } from '../trpc';

/** Whether the member's role allows changing this key (test keys, their own live keys, or any: permissions.ts). */
async function authorizeChangeOf(ctx: TrpcContext & { member: Member }, keyId: string): Promise<void> {
  const key = await keyOwnership({ ctx: ctx.services.ctx, accountId: ctx.member.account.id, keyId });
  authorizeKeyChange(ctx.member, key);
}

export const keysRouter = router({
  list: allowedProcedure('read').query(({ ctx }) =>
    listKeys({ ctx: ctx.services.ctx, accountId: ctx.account.id }),
  ),

  /** The creating member owns the key: a developer may then change it even when it is live. */
  create: protectedProcedure.input(CreateKeyInput).mutation(({ ctx, input }) => {
    authorize(ctx.member, 'keys.create');
    return createKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      ownerUserId: ctx.member.userId,
      input,
      modelExists: (id) => ctx.services.catalogue.findAny(id) !== undefined,
      audit: sessionAudit(ctx.req, ctx.caller.user),
    });
  }),

  revoke: protectedProcedure.input(RevokeKeyInput).mutation(async ({ ctx, input }) => {
    await authorizeChangeOf(ctx, input.id);
    return revokeKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      keyId: input.id,
      onRevoked: (hash) => ctx.services.keys.forget(hash),
      audit: sessionAudit(ctx.req, ctx.caller.user),
    });
  }),

  rotate: protectedProcedure.input(RotateKeyInput).mutation(async ({ ctx, input }) => {
    await authorizeChangeOf(ctx, input.id);
    return rotateKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      input,
      onChanged: (row) => ctx.services.keys.applyKey(row),
      audit: sessionAudit(ctx.req, ctx.caller.user),
    });
  }),

  update: protectedProcedure.input(UpdateKeyInput).mutation(async ({ ctx, input }) => {
    await authorizeChangeOf(ctx, input.id);
    return updateKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      input,
      modelExists: (id) => ctx.services.catalogue.findAny(id) !== undefined,
      onChanged: (row) => ctx.services.keys.applyKey(row),
      audit: sessionAudit(ctx.req, ctx.caller.user),
    });
  }),
});

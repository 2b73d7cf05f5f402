import { CreateKeyInput, RevokeKeyInput, RotateKeyInput, UpdateKeyInput } from '@tessera/shared';
import { sessionAudit } from '../../http/audit';
import { createKey, listKeys, revokeKey, rotateKey, updateKey } from '../../modules/keys';
import { protectedProcedure, router } from '../trpc';

export const keysRouter = router({
  list: protectedProcedure.query(({ ctx }) => listKeys({ ctx: ctx.services.ctx, accountId: ctx.account.id })),

  create: protectedProcedure.input(CreateKeyInput).mutation(({ ctx, input }) =>
    createKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      input,
      modelExists: (id) => ctx.services.catalogue.find(id) !== undefined,
      audit: sessionAudit(ctx.req, ctx.account),
    }),
  ),

  revoke: protectedProcedure.input(RevokeKeyInput).mutation(({ ctx, input }) =>
    revokeKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      keyId: input.id,
      onRevoked: (hash) => ctx.services.keys.forget(hash),
      audit: sessionAudit(ctx.req, ctx.account),
    }),
  ),

  rotate: protectedProcedure.input(RotateKeyInput).mutation(({ ctx, input }) =>
    rotateKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      input,
      onChanged: (row) => ctx.services.keys.applyKey(row),
      audit: sessionAudit(ctx.req, ctx.account),
    }),
  ),

  update: protectedProcedure.input(UpdateKeyInput).mutation(({ ctx, input }) =>
    updateKey({
      ctx: ctx.services.ctx,
      accountId: ctx.account.id,
      input,
      modelExists: (id) => ctx.services.catalogue.find(id) !== undefined,
      onChanged: (row) => ctx.services.keys.applyKey(row),
      audit: sessionAudit(ctx.req, ctx.account),
    }),
  ),
});

import { SignInInput, SignUpInput } from '@tessera/shared';
import type { Response } from 'express';
import { auditRequestOf } from '../../http/audit';
import { SESSION_COOKIE } from '../../http/session';
import { createSession, endSession, signIn, signUp, toAccountView } from '../../modules/accounts';
import { sessionActor } from '../../modules/audit';
import type { Services } from '../../services';
import { protectedProcedure, publicProcedure, router } from '../trpc';

function setSessionCookie(res: Response, services: Services, token: string, expiresAt: Date): void {
  const secureSetting = services.ctx.config.cookieSecure;
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: secureSetting === 'auto' ? res.req.secure : secureSetting,
    path: '/',
    expires: expiresAt,
  });
}

export const authRouter = router({
  signUp: publicProcedure.input(SignUpInput).mutation(async ({ ctx, input }) => {
    const account = await signUp({
      ctx: ctx.services.ctx,
      input,
      address: ctx.req.ip ?? 'unknown',
      throttle: ctx.services.authThrottle,
      request: auditRequestOf(ctx.req),
    });
    const session = await createSession({ ctx: ctx.services.ctx, accountId: account.id });
    setSessionCookie(ctx.res, ctx.services, session.token, session.expiresAt);
    return toAccountView(account, ctx.services.ctx.config.planDefaults);
  }),

  signIn: publicProcedure.input(SignInInput).mutation(async ({ ctx, input }) => {
    const request = auditRequestOf(ctx.req);
    const account = await signIn({
      ctx: ctx.services.ctx,
      input,
      address: ctx.req.ip ?? 'unknown',
      throttle: ctx.services.authThrottle,
      request,
    });
    const session = await createSession({
      ctx: ctx.services.ctx,
      accountId: account.id,
      audit: { actor: sessionActor(account), ...request },
    });
    setSessionCookie(ctx.res, ctx.services, session.token, session.expiresAt);
    return toAccountView(account, ctx.services.ctx.config.planDefaults);
  }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionToken)
      await endSession({ ctx: ctx.services.ctx, token: ctx.sessionToken, audit: auditRequestOf(ctx.req) });
    ctx.res.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true as const };
  }),

  me: publicProcedure.query(({ ctx }) =>
    ctx.account ? toAccountView(ctx.account, ctx.services.ctx.config.planDefaults) : null,
  ),

  /** Same as `me` but fails when signed out; used by pages that require a session. */
  account: protectedProcedure.query(({ ctx }) =>
    toAccountView(ctx.account, ctx.services.ctx.config.planDefaults),
  ),
});

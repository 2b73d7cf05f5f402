import { type SessionView, SignInInput, SignUpInput } from '@tessera/shared';
import type { Response } from 'express';
import { auditRequestOf } from '../../http/audit';
import { SESSION_COOKIE } from '../../http/session';
import {
  checkSignUpAttempt,
  createSession,
  endSession,
  resolveSession,
  type SessionCaller,
  signIn,
  signUp,
  toAccountView,
} from '../../modules/accounts';
import { type AuditContext, sessionActor } from '../../modules/audit';
import { listOrganisations, organisationName, signUpByInvitation } from '../../modules/teams';
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

/**
 * The organisation a new session works in, as `me` shows it (sign-up and sign-in answer with it, as before
 * teams); null when the user belongs to no organisation.
 */
async function startSession(
  services: Services,
  res: Response,
  userId: string,
  accountId?: string,
  audit?: AuditContext,
) {
  const session = await createSession({ ctx: services.ctx, userId, accountId, ...(audit && { audit }) });
  setSessionCookie(res, services, session.token, session.expiresAt);
  const caller = await resolveSession({ ctx: services.ctx, token: session.token });
  return meView(services, caller);
}

function meView(services: Services, caller: SessionCaller | null) {
  return caller?.member
    ? {
        ...toAccountView(caller.member.account, services.ctx.config.planDefaults),
        role: caller.member.role,
        userId: caller.user.id,
        userEmail: caller.user.email,
      }
    : null;
}

/** What the dashboard knows of its session: the user, the organisation it works in, and all of theirs. */
export async function sessionView(services: Services, caller: SessionCaller): Promise<SessionView> {
  const { user, member } = caller;
  return {
    user: { id: user.id, email: user.email, name: user.name },
    organisation: member
      ? { id: member.account.id, name: organisationName(member.account), role: member.role }
      : null,
    organisations: await listOrganisations({ ctx: services.ctx, userId: user.id }),
  };
}

export const authRouter = router({
  /**
   * Sign-up creates a user, an organisation of one and the owner membership; through an invitation
   * (`invitation`: the link's token) it creates the user and that membership only.
   */
  signUp: publicProcedure.input(SignUpInput).mutation(async ({ ctx, input }) => {
    const services = ctx.services;
    const address = ctx.req.ip ?? 'unknown';
    let userId: string;
    let accountId: string;
    if (input.invitation) {
      await checkSignUpAttempt(address, services.authThrottle);
      const joined = await signUpByInvitation({
        ctx: services.ctx,
        input,
        token: input.invitation,
        request: auditRequestOf(ctx.req),
      });
      userId = joined.user.id;
      accountId = joined.accountId;
    } else {
      const account = await signUp({
        ctx: services.ctx,
        input,
        address,
        throttle: services.authThrottle,
        request: auditRequestOf(ctx.req),
      });
      userId = account.ownerUserId;
      accountId = account.id;
    }
    return startSession(services, ctx.res, userId, accountId);
  }),

  signIn: publicProcedure.input(SignInInput).mutation(async ({ ctx, input }) => {
    const request = auditRequestOf(ctx.req);
    const user = await signIn({
      ctx: ctx.services.ctx,
      input,
      address: ctx.req.ip ?? 'unknown',
      throttle: ctx.services.authThrottle,
      request,
    });
    return startSession(ctx.services, ctx.res, user.id, undefined, { actor: sessionActor(user), ...request });
  }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionToken)
      await endSession({ ctx: ctx.services.ctx, token: ctx.sessionToken, audit: auditRequestOf(ctx.req) });
    ctx.res.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true as const };
  }),

  /** The session (null when signed out): user, current organisation and role, the switcher's list. */
  session: publicProcedure.query(({ ctx }) => (ctx.caller ? sessionView(ctx.services, ctx.caller) : null)),

  /** The session's organisation and the caller's role in it; null when signed out or in no organisation. */
  me: publicProcedure.query(({ ctx }) => meView(ctx.services, ctx.caller)),

  /** Same as `me` but fails when signed out; used by pages that require a session. */
  account: protectedProcedure.query(({ ctx }) => ({
    ...toAccountView(ctx.account, ctx.services.ctx.config.planDefaults),
    role: ctx.member.role,
    userId: ctx.member.userId,
    userEmail: ctx.caller.user.email,
  })),
});

import { initTRPC, TRPCError } from '@trpc/server';
import type { CreateExpressContextOptions } from '@trpc/server/adapters/express';
import type { Request, Response } from 'express';
import { ZodError } from 'zod';
import type { AccountRow } from '../db/schema';
import { asUnavailable, type ErrorKind, isServiceError } from '../errors';
import { errorHeaders } from '../http/error-headers';
import { contextOf } from '../http/request-context';
import { CSRF_HEADER, SESSION_COOKIE } from '../http/session';
import { readCookie } from '../lib/cookies';
import { deniedResource, logTenantDenial } from '../lib/tenant-denial';
import { type Member, resolveSession, type SessionCaller } from '../modules/accounts';
import { type Action, authorize } from '../modules/teams';
import type { Services } from '../services';

export interface TrpcContext {
  services: Services;
  req: Request;
  res: Response;
  sessionToken: string | undefined;
  /** The signed-in user and their membership in the session's organisation. */
  caller: SessionCaller | null;
  /** The session's organisation, when the user is (still) a member of it. */
  account: AccountRow | null;
}

export function contextFactory(services: Services) {
  return async ({ req, res }: CreateExpressContextOptions): Promise<TrpcContext> => {
    const sessionToken = readCookie(req.headers.cookie, SESSION_COOKIE);
    let caller: SessionCaller | null;
    try {
      caller = sessionToken ? await resolveSession({ ctx: services.ctx, token: sessionToken }) : null;
    } catch (err) {
      // tRPC builds the context before any procedure runs, so mapErrors never sees this failure, and tRPC
      // would answer its own generic 500 (a database outage included) with nothing logged.
      throw mapFailure({ services, res, error: toTRPCError(err), path: req.path.slice(1) });
    }
    return { services, req, res, sessionToken, caller, account: caller?.member?.account ?? null };
  };
}

type TrpcCode = TRPCError['code'];

function trpcCodeOf(kind: ErrorKind): TrpcCode {
  switch (kind) {
    case 'invalid_request':
    case 'unsupported_media_type':
      return 'BAD_REQUEST';
    case 'authentication':
      return 'UNAUTHORIZED';
    case 'permission':
      return 'FORBIDDEN';
    case 'not_found':
      return 'NOT_FOUND';
    case 'method_not_allowed':
      return 'METHOD_NOT_SUPPORTED';
    case 'conflict':
      return 'CONFLICT';
    case 'payload_too_large':
      return 'PAYLOAD_TOO_LARGE';
    case 'rate_limited':
    case 'insufficient_quota':
      return 'TOO_MANY_REQUESTS';
    case 'timeout':
    case 'request_timeout':
      return 'TIMEOUT';
    case 'unavailable':
      return 'SERVICE_UNAVAILABLE';
    case 'upstream':
    case 'internal':
      return 'INTERNAL_SERVER_ERROR';
    default: {
      const unreachable: never = kind;
      throw new Error(`unmapped error kind ${String(unreachable)}`);
    }
  }
}

/** Module errors become TRPCErrors with their message; anything else stays a generic internal error. */
export function toTRPCError(err: unknown): TRPCError {
  if (err instanceof TRPCError) return err;
  if (isServiceError(err))
    return new TRPCError({ code: trpcCodeOf(err.kind), message: err.message, cause: err });
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', cause: err });
}

/**
 * A failed call as tRPC answers it, wherever it failed (the context or a procedure): a module's error or an
 * unreachable dependency mapped by its kind, its retry advice (a throttled sign-in's or an outage's
 * retry-after) as headers as on REST, and the cause logged: an unknown error in full, an outage once per
 * request (a batch's calls share one cause, and the access-log line then names it too).
 */
function mapFailure({
  services,
  res,
  error,
  path,
}: {
  services: Services;
  res: Response;
  error: TRPCError;
  path: string;
}): TRPCError {
  const { logger } = services.ctx;
  const cause = asUnavailable(error.cause) ?? error.cause;
  if (!isServiceError(cause)) {
    if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error, path }, 'trpc error');
    return error;
  }
  const mapped = toTRPCError(cause);
  for (const [name, value] of Object.entries(errorHeaders(cause))) res.setHeader(name, value);
  const request = contextOf(res);
  if (cause.kind === 'unavailable' && request.usage.errorType === null) {
    request.usage.failed({ type: 'server_error', code: cause.code, message: cause.message });
    logger.warn(
      { requestId: request.requestId, path, cause: rootCause(cause.cause) },
      'trpc call refused: a dependency is unavailable',
    );
  } else if (mapped.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error, path }, 'trpc error');
  return mapped;
}

/**
 * The innermost error of a chain (the socket's or the driver's), by code and message: a failed query's own
 * message carries its text and parameters (a session's hash), which stay out of the logs.
 */
function rootCause(err: unknown): { code: string | undefined; message: string } {
  let current = err;
  for (let depth = 0; depth < 6 && current instanceof Error && current.cause instanceof Error; depth++)
    current = current.cause;
  const code = (current as { code?: unknown } | null)?.code;
  return {
    code: typeof code === 'string' ? code : undefined,
    message: current instanceof Error ? current.message : String(current),
  };
}

/** `{ email: ['Enter a valid email address'] }`: what a form shows beside each field. */
function fieldErrorsOf(err: ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of err.issues) {
    const key = issue.path.join('.') || '_';
    out[key] = [...(out[key] ?? []), issue.message];
  }
  return out;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const internal = error.code === 'INTERNAL_SERVER_ERROR' && !isServiceError(error.cause);
    const cause = error.cause;
    // A module's refusal of one field (a common password) is shown beside that field, as zod's are.
    const fieldErrors =
      cause instanceof ZodError
        ? fieldErrorsOf(cause)
        : isServiceError(cause) && cause.kind === 'invalid_request' && cause.param
          ? { [cause.param]: [cause.message] }
          : null;
    return {
      ...shape,
      message: internal
        ? 'Internal server error'
        : cause instanceof ZodError
          ? 'Invalid input'
          : shape.message,
      data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, fieldErrors },
    };
  },
});

const mapErrors = t.middleware(async ({ next, type, ctx, path }) => {
  if (type === 'mutation' && ctx.req.get(CSRF_HEADER) !== '1') {
    throw new TRPCError({ code: 'FORBIDDEN', message: `Mutations require the ${CSRF_HEADER} header.` });
  }
  const result = await next();
  if (!result.ok) {
    const resource = deniedResource(result.error.cause);
    if (resource && ctx.account) {
      logTenantDenial(ctx.services.ctx.logger, {
        transport: 'trpc',
        actorAccount: ctx.account.id,
        via: 'session',
        resource,
        requestId: contextOf(ctx.res).requestId,
        operation: path,
      });
    }
    throw mapFailure({ services: ctx.services, res: ctx.res, error: result.error, path });
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);

/** Signed-in procedures that need no organisation (accepting an invitation, the switcher). */
export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.caller || !ctx.sessionToken)
    throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to continue.' });
  return next({ ctx: { ...ctx, caller: ctx.caller, user: ctx.caller.user, sessionToken: ctx.sessionToken } });
});

/**
 * Signed-in procedures in the session's organisation: the context's account and member are non-null. A user
 * removed from the organisation is refused here from their next call on.
 */
export const protectedProcedure = userProcedure.use(({ ctx, next }) => {
  const member: Member | null = ctx.caller.member;
  if (!member) {
    throw new TRPCError({
      code: 'FORBIDDEN',
      message:
        'You are not a member of this organisation (any more). Switch to another organisation, or open an invitation link.',
    });
  }
  return next({ ctx: { ...ctx, member, account: member.account } });
});

/** A procedure the member's role must allow (modules/teams/permissions.ts): FORBIDDEN naming the role needed. */
export function allowedProcedure(action: Action) {
  return protectedProcedure.use(({ ctx, next }) => {
    authorize(ctx.member, action);
    return next();
  });
}

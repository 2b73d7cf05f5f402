import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { AccountRow } from '../db/schema';
import { isServiceError, ServiceError } from '../errors';
import { contextOf, type RequestContext } from '../http/request-context';
import { SESSION_COOKIE } from '../http/session';
import { readCookie } from '../lib/cookies';
import { findAccount, type Member, resolveSession } from '../modules/accounts';
import { type Principal, presentedKey } from '../modules/keys';
import { authorize } from '../modules/teams';
import type { Services } from '../services';
import { toGraphQLError } from './errors';

/** What every resolver receives: the caller's account, and how it authenticated. */
export interface GraphqlContext {
  services: Services;
  account: AccountRow;
  authenticatedBy: 'SESSION' | 'API_KEY';
  /** The signed-in member (role checks: modules/teams/permissions.ts); null with an API key. */
  member: Member | null;
  /** Set when an API key was used (the call is metered like a REST call). */
  principal: Principal | null;
  /** The request's context (http/request-context.ts): its id, and its usage record for metering. */
  request: RequestContext;
}

function unauthenticated(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
}

/**
 * An API key in `Authorization` wins (integrators); else the dashboard's session cookie. Everything a
 * resolver reads is scoped by `account.id`: no argument can name another account.
 */
export function graphqlContext(services: Services) {
  return async ({ req, res }: { req: Request; res: Response }): Promise<GraphqlContext> => {
    const request = contextOf(res);
    try {
      return await resolveCaller(services, req, request);
    } catch (err) {
      // A database that is down or stalled while the caller is looked up is a 503 with retry advice (it was
      // Apollo's generic 500); GraphQL's own errors (401) pass as they are.
      const mapped = toGraphQLError(err);
      request.usage.failed(
        { type: 'graphql_error', code: String(mapped.extensions.code), message: mapped.message },
        { first: true },
      );
      throw mapped;
    }
  };
}

/** The caller: by API key (then metered like REST) or by the dashboard's session. */
async function resolveCaller(
  services: Services,
  req: Request,
  request: RequestContext,
): Promise<GraphqlContext> {
  const authorization = req.get('authorization');
  if (authorization !== undefined) {
    let principal: Principal;
    try {
      const presented = presentedKey(authorization);
      // A refused key's call is attributed to its account by this hash, as on REST.
      request.keyHash = presented.hash;
      principal = await services.keys.verify(presented);
    } catch (err) {
      // Keys that cannot be checked now (the database is down) are not a credentials problem: 503.
      if (isServiceError(err) && err.kind === 'unavailable') throw toGraphQLError(err);
      const mapped = toGraphQLError(err);
      request.usage.failed({
        type: 'authentication_error',
        code: isServiceError(err) ? err.code : 'invalid_api_key',
        message: mapped.message,
      });
      throw unauthenticated(mapped.message);
    }
    request.principal = principal;
    // GraphQL reads the whole account's usage and keys: a key limited to some endpoints is not allowed there.
    if (principal.access?.scopes) {
      const err = new ServiceError(
        'permission',
        `This API key is limited to some endpoints (${[...principal.access.scopes].join(', ')}) and may not read the account through GraphQL. Use a key without scopes, or the dashboard.`,
        { code: 'permission_denied', type: 'permission_denied' },
      );
      request.usage.failed({ type: 'permission_denied', code: 'permission_denied', message: err.message });
      throw toGraphQLError(err);
    }
    services.lastUsed.touch(principal.keyId, request.clock.now());
    const account = await findAccount({ ctx: services.ctx, idOrEmail: principal.accountId });
    return { services, account, authenticatedBy: 'API_KEY', member: null, principal, request };
  }
  const token = readCookie(req.headers.cookie, SESSION_COOKIE);
  const caller = token ? await resolveSession({ ctx: services.ctx, token }) : null;
  if (!caller) {
    throw unauthenticated(
      'Sign in to the dashboard, or send an API key as `Authorization: Bearer <key>`, to use the GraphQL API.',
    );
  }
  // A removed member's session no longer reaches the organisation, from their next request on.
  const { member } = caller;
  if (!member) {
    throw toGraphQLError(
      new ServiceError(
        'permission',
        'You are not a member of this organisation (any more). Switch organisation in the dashboard.',
        {
          code: 'not_a_member',
        },
      ),
    );
  }
  authorize(member, 'read');
  return { services, account: member.account, authenticatedBy: 'SESSION', member, principal: null, request };
}

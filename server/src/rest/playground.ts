import type { Express, RequestHandler } from 'express';
import { ServiceError } from '../errors';
import { contextOf } from '../http/request-context';
import { CSRF_HEADER, PLAYGROUND_KEY_ID, SESSION_COOKIE } from '../http/session';
import { readCookie } from '../lib/cookies';
import { resolveSession } from '../modules/accounts';
import { resolveLimits } from '../modules/plans';
import { authorize } from '../modules/teams';
import type { Services } from '../services';
import { codeAnalyzeRoutes } from './api/code-analyze';
import { meteredPipeline } from './pipeline';
import { registerRoutes } from './routes';
import { chatRoutes } from './v1/chat';

/** The dashboard playground's routes: the same handlers as the public API, authenticated by the session. */
export const PLAYGROUND_CHAT_PATH = '/api/playground/chat/completions';
export const PLAYGROUND_ANALYZE_PATH = '/api/playground/code/analyze';

/**
 * The signed-in account, always in test mode: the dashboard never needs a key's secret, and the calls are
 * served by the simulator, metered as the account's test usage and limited by its test request rate.
 * A cookie-authenticated POST must carry the CSRF header, as tRPC mutations do.
 */
function authenticateSession(services: Services): RequestHandler {
  return async (req, res, next) => {
    if (req.get(CSRF_HEADER) !== '1') {
      throw new ServiceError('permission', `The playground requires the ${CSRF_HEADER}: 1 header.`, {
        code: 'csrf_header_missing',
      });
    }
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    const caller = token ? await resolveSession({ ctx: services.ctx, token }) : null;
    if (!caller) {
      throw new ServiceError('authentication', 'Sign in to the dashboard to use the playground.', {
        code: 'session_required',
      });
    }
    if (!caller.member) {
      throw new ServiceError('permission', 'You are not a member of this organisation (any more).', {
        code: 'permission_denied',
        type: 'permission_denied',
      });
    }
    // Viewers read the dashboard only: 403 permission_denied naming the role needed.
    authorize(caller.member, 'playground.use');
    const account = caller.member.account;
    contextOf(res).principal = {
      keyId: PLAYGROUND_KEY_ID,
      accountId: account.id,
      mode: 'test',
      last4: '',
      plan: account.plan,
      limits: resolveLimits(account, services.ctx.config.planDefaults),
    };
    next();
  };
}

export function mountPlayground(app: Express, services: Services): void {
  const chat = chatRoutes(services).find((r) => r.path === '/v1/chat/completions');
  const analyze = codeAnalyzeRoutes(services).find((r) => r.path === '/api/code/analyze');
  if (!chat || !analyze) throw new Error('a route the playground reuses is missing');
  const routes = [
    { ...chat, path: PLAYGROUND_CHAT_PATH },
    { ...analyze, path: PLAYGROUND_ANALYZE_PATH },
  ];
  registerRoutes(app, routes, meteredPipeline(services, authenticateSession(services)));
}

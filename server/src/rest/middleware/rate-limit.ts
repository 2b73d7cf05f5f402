import { PLAN_LABELS } from '@tessera/shared';
import type { NextFunction, RequestHandler, Response } from 'express';
import { ServiceError } from '../../errors';
import { contextOf } from '../../http/request-context';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { AllowanceStatus, TokenAllowance } from '../../modules/allowance';
import { formatDuration, type LimitDecision, type RateLimiter } from '../../modules/ratelimit';
import type { Principal } from '../../principal';

/**
 * After authentication: counts the request against the account's per-minute limit (per mode) and sets
 * OpenAI's rate-limit headers for requests and for the token allowance on every response, 429 or not.
 * The allowance figures come from its in-memory view, so this adds no database read per request.
 * When both answers are at hand (the in-process limiter, the allowance's view in memory) the middleware runs
 * through synchronously: no promise, no await, no Promise.all on the path of every call.
 */
export function rateLimit(deps: {
  limiter: RateLimiter;
  allowance: TokenAllowance;
  clock: Clock;
  logger: Logger;
}): RequestHandler {
  // Per middleware, so per server: one process may hold several (tests), and one's warning must not mute another's.
  const warned = { at: Number.NEGATIVE_INFINITY };
  const admit = (res: Response, decision: LimitDecision, plan: Principal['plan'], next: NextFunction) => {
    res.setHeader('x-ratelimit-limit-requests', String(decision.limit));
    res.setHeader('x-ratelimit-remaining-requests', String(decision.remaining));
    res.setHeader('x-ratelimit-reset-requests', formatDuration(decision.resetMs));
    if (!decision.allowed) throw rateLimited(decision, PLAN_LABELS[plan]);
    next();
  };
  return (_req, res, next) => {
    const principal = contextOf(res).principal;
    if (!principal) throw new Error('rate limit reached without a principal');
    const decision = deps.limiter.check(principal);
    let status: ReturnType<TokenAllowance['status']> | undefined;
    try {
      status = deps.allowance.status(principal);
    } catch (err) {
      warnUnavailable(deps.logger, warned, err);
    }
    if (!(status instanceof Promise)) {
      if (status) setTokenHeaders(res, status, deps.clock);
      if (!(decision instanceof Promise)) return admit(res, decision, principal.plan, next);
    }
    return Promise.all([
      decision,
      status instanceof Promise
        ? status.then(
            (s) => setTokenHeaders(res, s, deps.clock),
            (err: unknown) => warnUnavailable(deps.logger, warned, err),
          )
        : undefined,
    ]).then(([d]) => admit(res, d, principal.plan, next));
  };
}

/** A 429 naming the limit that was hit: the plan's (`rate_limit_exceeded`) or the key's own (`key_rate_limit_exceeded`). */
function rateLimited(decision: LimitDecision, plan: string): ServiceError {
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const message =
    decision.by === 'key'
      ? `Rate limit reached for this API key: the key's own limit allows ${decision.limit} requests per minute (within the ${plan} plan's). Try again in ${seconds}s.`
      : `Rate limit reached: the ${plan} plan allows ${decision.limit} requests per minute. Try again in ${seconds}s.`;
  return new ServiceError('rate_limited', message, {
    code: decision.by === 'key' ? 'key_rate_limit_exceeded' : 'rate_limit_exceeded',
    type: 'requests',
    // http/error-headers.ts turns it into `retry-after` and `retry-after-ms`.
    retryAfterMs: Math.max(1, decision.retryAfterMs),
  });
}

function setTokenHeaders(res: Response, status: AllowanceStatus, clock: Clock): void {
  res.setHeader('x-ratelimit-limit-tokens', String(status.limit));
  res.setHeader('x-ratelimit-remaining-tokens', String(status.remaining));
  res.setHeader(
    'x-ratelimit-reset-tokens',
    formatDuration(Math.max(0, status.resetsAt.getTime() - clock.now())),
  );
}

/** Best effort: a failing allowance read leaves the token headers out rather than failing the request. */
function warnUnavailable(logger: Logger, warned: { at: number }, err: unknown): void {
  // Once per 10 s: while the database is down this would otherwise log on every request.
  const now = Date.now();
  if (now - warned.at >= 10_000) {
    warned.at = now;
    logger.warn({ err: (err as Error).message }, 'allowance status unavailable; token headers left out');
  }
}

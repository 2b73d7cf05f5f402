import { PLAN_LABELS } from '@tessera/shared';
import type { RequestHandler, Response } from 'express';
import { ServiceError } from '../../errors';
import { contextOf } from '../../http/request-context';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { TokenAllowance } from '../../modules/allowance';
import { formatDuration, type LimitDecision, type RateLimiter } from '../../modules/ratelimit';

/**
 * After authentication: counts the request against the account's per-minute limit (per mode) and sets
 * OpenAI's rate-limit headers for requests and for the token allowance on every response, 429 or not.
 * The allowance figures come from its in-memory view, so this adds no database read per request.
 */
export function rateLimit(deps: {
  limiter: RateLimiter;
  allowance: TokenAllowance;
  clock: Clock;
  logger: Logger;
}): RequestHandler {
  // Per middleware, so per server: one process may hold several (tests), and one's warning must not mute another's.
  const warned = { at: Number.NEGATIVE_INFINITY };
  return async (_req, res, next) => {
    const principal = contextOf(res).principal;
    if (!principal) throw new Error('rate limit reached without a principal');
    const [decision] = await Promise.all([
      deps.limiter.check(principal),
      setTokenHeaders(res, deps, principal, warned),
    ]);
    res.setHeader('x-ratelimit-limit-requests', String(decision.limit));
    res.setHeader('x-ratelimit-remaining-requests', String(decision.remaining));
    res.setHeader('x-ratelimit-reset-requests', formatDuration(decision.resetMs));
    if (!decision.allowed) throw rateLimited(decision, PLAN_LABELS[principal.plan]);
    next();
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

/** Best effort: a failing allowance read leaves the token headers out rather than failing the request. */
async function setTokenHeaders(
  res: Response,
  deps: { allowance: TokenAllowance; clock: Clock; logger: Logger },
  principal: Parameters<TokenAllowance['status']>[0],
  warned: { at: number },
): Promise<void> {
  try {
    const status = await deps.allowance.status(principal);
    res.setHeader('x-ratelimit-limit-tokens', String(status.limit));
    res.setHeader('x-ratelimit-remaining-tokens', String(status.remaining));
    res.setHeader(
      'x-ratelimit-reset-tokens',
      formatDuration(Math.max(0, status.resetsAt.getTime() - deps.clock.now())),
    );
  } catch (err) {
    // Once per 10 s: while the database is down this would otherwise log on every request.
    const now = Date.now();
    if (now - warned.at >= 10_000) {
      warned.at = now;
      deps.logger.warn(
        { err: (err as Error).message },
        'allowance status unavailable; token headers left out',
      );
    }
  }
}

import type { RequestHandler } from 'express';
import { locals } from '../../http/locals';
import type { Clock } from '../../lib/clock';
import type { ApiKeyVerifier, LastUsedTracker } from '../../modules/keys';

/** Verifies `Authorization: Bearer <key>` and leaves the caller's principal on `res.locals`. */
export function authenticate(deps: {
  keys: ApiKeyVerifier;
  lastUsed: LastUsedTracker;
  clock: Clock;
}): RequestHandler {
  return async (req, res, next) => {
    const principal = await deps.keys.verify(req.get('authorization'));
    locals(res).principal = principal;
    deps.lastUsed.touch(principal.keyId, deps.clock.now());
    next();
  };
}

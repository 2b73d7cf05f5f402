import type { RequestHandler } from 'express';
import { contextOf } from '../../http/request-context';
import { type ApiKeyVerifier, type LastUsedTracker, presentedKey } from '../../modules/keys';

/**
 * Verifies `Authorization: Bearer <key>` and puts the caller's principal in the request's context. The key is
 * read once, here: its hash stays in the context, so that metering can attribute a refused key's request.
 */
export function authenticate(deps: { keys: ApiKeyVerifier; lastUsed: LastUsedTracker }): RequestHandler {
  return async (req, res, next) => {
    const context = contextOf(res);
    const presented = presentedKey(req.get('authorization'));
    context.keyHash = presented.hash;
    const principal = await deps.keys.verify(presented);
    context.principal = principal;
    deps.lastUsed.touch(principal.keyId, context.clock.now());
    next();
  };
}

import type { Response } from 'express';
import { locals, recordError } from '../../http/locals';
import { PLAYGROUND_KEY_ID } from '../../http/session';
import { deniedResource, logTenantDenial } from '../../lib/tenant-denial';
import type { Logger } from '../../logger';
import { toHttpError } from '../errors';

/** Writes an error in OpenAI's body, records it for logs and metering, and logs unknown errors in full. */
export function sendError(res: Response, err: unknown, logger: Logger): void {
  const l = locals(res);
  const http = toHttpError(err, l.requestId);
  if (http.status >= 500 && http.body.error.code === null) {
    logger.error({ requestId: l.requestId, err }, 'unhandled error');
  }
  const resource = deniedResource(err);
  if (resource && l.principal) {
    const bySession = l.principal.keyId === PLAYGROUND_KEY_ID;
    logTenantDenial(logger, {
      transport: 'rest',
      actorAccount: l.principal.accountId,
      via: bySession ? 'session' : 'api_key',
      actorKeyId: bySession ? undefined : l.principal.keyId,
      resource,
      requestId: l.requestId,
      operation: `${res.req.method} ${l.route ?? res.req.path}`,
    });
  }
  recordError(res, http.body.error);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(http.headers)) res.setHeader(name, value);
  res.status(http.status).json(http.body);
}

import type { Response } from 'express';
import { contextOf } from '../../http/request-context';
import { PLAYGROUND_KEY_ID } from '../../http/session';
import { deniedResource, logTenantDenial } from '../../lib/tenant-denial';
import type { Logger } from '../../logger';
import { toHttpError } from '../errors';

/** Writes an error in OpenAI's body, records it for logs and metering, and logs unknown errors in full. */
export function sendError(res: Response, err: unknown, logger: Logger): void {
  const context = contextOf(res);
  const http = toHttpError(err, context.requestId);
  if (http.status >= 500 && http.body.error.code === null) {
    logger.error({ requestId: context.requestId, err }, 'unhandled error');
  }
  const resource = deniedResource(err);
  const { principal } = context;
  if (resource && principal) {
    const bySession = principal.keyId === PLAYGROUND_KEY_ID;
    logTenantDenial(logger, {
      transport: 'rest',
      actorAccount: principal.accountId,
      via: bySession ? 'session' : 'api_key',
      actorKeyId: bySession ? undefined : principal.keyId,
      resource,
      requestId: context.requestId,
      operation: `${res.req.method} ${context.route ?? res.req.path}`,
    });
  }
  context.usage.failed(http.body.error);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(http.headers)) res.setHeader(name, value);
  res.status(http.status).json(http.body);
}

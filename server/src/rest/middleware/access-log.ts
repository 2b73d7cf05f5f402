import type { Request, RequestHandler, Response } from 'express';
import { contextOf } from '../../http/request-context';
import type { Logger } from '../../logger';

/** One structured line per request when the response is done (or the client went away). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      writeLine(logger, req, res);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

function writeLine(logger: Logger, req: Request, res: Response): void {
  const context = contextOf(res);
  const line = {
    requestId: context.requestId,
    method: req.method,
    route: context.route,
    path: req.path,
    status: res.statusCode,
    latencyMs: Math.round((performance.now() - context.startedAt) * 100) / 100,
    accountId: context.principal?.accountId,
    keyId: context.principal?.keyId,
    aborted: !res.writableFinished,
    errorCode: context.usage.errorCode ?? undefined,
  };
  if (res.statusCode >= 500) logger.error(line, 'request');
  else logger.info(line, 'request');
}

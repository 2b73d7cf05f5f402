import type { Request, RequestHandler, Response } from 'express';
import { locals } from '../../http/locals';
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
  const l = locals(res);
  const line = {
    requestId: l.requestId,
    method: req.method,
    route: l.route ?? null,
    path: req.path,
    status: res.statusCode,
    latencyMs: Math.round((performance.now() - l.startedAt) * 100) / 100,
    accountId: l.principal?.accountId,
    keyId: l.principal?.keyId,
    aborted: !res.writableFinished,
    errorCode: l.errorCode ?? undefined,
  };
  if (res.statusCode >= 500) logger.error(line, 'request');
  else logger.info(line, 'request');
}

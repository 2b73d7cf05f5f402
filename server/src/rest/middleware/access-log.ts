import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger';
import { locals } from './locals';

/** One structured line per request when the response is done (or the client went away). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const line = new AccessLine(logger, req, res);
    res.on('finish', line.done);
    res.on('close', line.done);
    next();
  };
}

/** One request's line. A class with a bound method rather than a closure, which tsx would rename per request. */
class AccessLine {
  private logged = false;
  readonly done = this.write.bind(this);

  constructor(
    private readonly logger: Logger,
    private readonly req: Request,
    private readonly res: Response,
  ) {}

  private write(): void {
    if (this.logged) return;
    this.logged = true;
    const { req, res } = this;
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
    if (res.statusCode >= 500) this.logger.error(line, 'request');
    else this.logger.info(line, 'request');
  }
}

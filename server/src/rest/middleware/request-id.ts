import type { RequestHandler } from 'express';
import { RequestContext } from '../../http/request-context';
import type { Clock } from '../../lib/clock';
import { randomBase62 } from '../../lib/ids';

const ACCEPTABLE = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The first middleware of every request: makes its one context (http/request-context.ts) with its id (the
 * caller's `x-request-id` when sane), and echoes the id on the response.
 */
export function requestContext(clock: Clock): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && ACCEPTABLE.test(incoming) ? incoming : randomBase62(24, 'req_');
    res.locals.context = new RequestContext(id, performance.now(), clock);
    res.setHeader('x-request-id', id);
    next();
  };
}

import type { RequestHandler } from 'express';
import { randomBase62 } from '../../lib/ids';

const ACCEPTABLE = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives every request an id (the caller's `x-request-id` when sane) and echoes it on the response. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && ACCEPTABLE.test(incoming) ? incoming : `req_${randomBase62(24)}`;
  res.locals.requestId = id;
  res.locals.startedAt = performance.now();
  res.setHeader('x-request-id', id);
  next();
};

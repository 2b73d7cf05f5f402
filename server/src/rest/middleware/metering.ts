import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../lib/clock';
import type { Metrics } from '../../metrics/registry';
import { hashKey, parseKey } from '../../modules/keys';
import { ABORTED_STATUS, type UsageRecorder } from '../../modules/usage';
import { locals } from './locals';

export interface MeteringDeps {
  usage: UsageRecorder;
  metrics: Metrics;
  clock: Clock;
}

/**
 * Meters a request once it is over: placed before authentication so that refusals are counted too. Runs on
 * 'finish' (response sent) or 'close' (client went away first: recorded as 499). Synchronous and in memory:
 * the request never waits on a database write.
 */
export function meter(deps: MeteringDeps): RequestHandler {
  return (req, res, next) => {
    let recorded = false;
    const done = () => {
      if (recorded) return;
      recorded = true;
      recordRequest(req, res, deps);
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

function recordRequest(req: Request, res: Response, deps: MeteringDeps): void {
  const l = locals(res);
  const status = res.writableFinished ? res.statusCode : ABORTED_STATUS;
  const latencyMs = Math.max(0, performance.now() - l.startedAt);
  const route = l.route ?? req.path;
  deps.metrics.observeRequest(req.method, route, status, latencyMs);
  const event = {
    occurredAt: deps.clock.now() - latencyMs,
    requestId: l.requestId,
    method: req.method,
    route,
    status,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    model: l.model ?? null,
    promptTokens: l.promptTokens ?? null,
    completionTokens: l.completionTokens ?? null,
    errorType: l.errorType ?? null,
    errorCode: l.errorCode ?? null,
    errorMessage: l.errorMessage ?? (status === ABORTED_STATUS ? 'The client closed the connection.' : null),
  };
  const principal = l.principal;
  if (principal) {
    deps.usage.record({
      ...event,
      accountId: principal.accountId,
      keyId: principal.keyId,
      mode: principal.mode,
    });
    return;
  }
  // A well-formed key that was refused (revoked, or unknown): the writer attributes it if the key exists.
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (presented && parseKey(presented)) {
    deps.usage.recordUnresolved({ ...event, keyHash: hashKey(presented) });
    return;
  }
  deps.metrics.unattributed(1);
}

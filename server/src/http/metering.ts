import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/registry';
import { hashKey, parseKey } from '../modules/keys';
import type { PriceTable } from '../modules/models';
import { ABORTED_STATUS, type UsageEvent, type UsageRecorder } from '../modules/usage';
import type { Tracing } from '../telemetry/tracing';
import { locals } from './locals';

const HANDLER_WAIT_MS = 120_000;

export interface MeteringDeps {
  usage: UsageRecorder;
  metrics: Metrics;
  clock: Clock;
  /**
   * What to do with a request that presented no key: count it as unattributed (REST), or leave it out of
   * usage (GraphQL, where the dashboard's session calls are not API usage).
   */
  anonymous?: 'unattributed' | 'ignore';
  /** OpenTelemetry export: a span from each recorded request, when configured. */
  tracing?: Tracing;
  /** Model prices: each request that used a priced model gets its cost. */
  prices?: PriceTable;
}

/**
 * Meters a request once it is over: placed before authentication so that refusals are counted too. Runs on
 * 'finish' (response sent) or 'close' (client went away first: recorded as 499). Synchronous and in memory:
 * the request never waits on a database write.
 */
export function meter(deps: MeteringDeps): RequestHandler {
  return (req, res, next) => {
    let recorded = false;
    let endedAt = 0;
    let endedWall = 0;
    // Whether the response ended before the connection closed: judged once, when the first of the two fires.
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const record = () => {
      if (recorded) return;
      recorded = true;
      if (timer) clearTimeout(timer);
      recordRequest(req, res, deps, { at: endedAt, wall: endedWall, finished });
    };
    const done = () => {
      if (endedAt !== 0) return;
      endedAt = performance.now();
      endedWall = deps.clock.now();
      finished = res.writableFinished;
      const l = locals(res);
      if (!l.handlerRunning) {
        record();
        return;
      }
      // The client went away while the handler still works (a stream being cut): its final usage comes
      // when it returns. A handler that never returns is recorded anyway after HANDLER_WAIT_MS.
      timer = setTimeout(record, HANDLER_WAIT_MS);
      timer.unref();
      // Not left pending: a timer would hold the request and response for minutes.
      l.onHandlerDone = record;
    };
    // Both may fire; the first decides (the second is ignored).
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

function recordRequest(
  req: Request,
  res: Response,
  deps: MeteringDeps,
  ended: { at: number; wall: number; finished: boolean },
): void {
  const l = locals(res);
  const status = ended.finished ? res.statusCode : ABORTED_STATUS;
  const latencyMs = Math.max(0, ended.at - l.startedAt);
  const route = l.route ?? req.path;
  deps.metrics.observeRequest(req.method, route, status, latencyMs);
  const principal = l.principal;
  const occurredAt = ended.wall - latencyMs;
  // One object of one shape per request: it is what the buffer keeps.
  const event: UsageEvent = {
    occurredAt,
    requestId: l.requestId,
    accountId: principal?.accountId ?? '',
    keyId: principal?.keyId ?? '',
    mode: principal?.mode ?? 'test',
    method: req.method,
    route,
    status,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    model: l.model ?? null,
    deployment: l.provider ?? null,
    promptTokens: l.promptTokens ?? null,
    completionTokens: l.completionTokens ?? null,
    // A cache hit cost nothing (no model call); what it saved is recorded beside it.
    costMicros:
      l.cache === 'hit'
        ? 0
        : l.model !== undefined && deps.prices
          ? deps.prices.costMicros(l.model, l.promptTokens ?? 0, l.completionTokens ?? 0, occurredAt)
          : null,
    cache: l.cache ?? null,
    savedMicros: l.savedMicros ?? null,
    errorType: l.errorType ?? null,
    errorCode: l.errorCode ?? null,
    errorMessage: l.errorMessage ?? (status === ABORTED_STATUS ? 'The client closed the connection.' : null),
  };
  deps.tracing?.requestEnded({ headers: req.headers, event, provider: l.provider });
  if (principal) {
    deps.usage.record(event);
    return;
  }
  // A well-formed key that was refused (revoked, or unknown): the writer attributes it if the key exists.
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (presented && parseKey(presented)) {
    deps.usage.recordUnresolved({ ...event, keyHash: hashKey(presented) });
    return;
  }
  if (deps.anonymous !== 'ignore' || req.get('authorization') !== undefined) deps.metrics.unattributed(1);
}

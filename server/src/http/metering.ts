import type { Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../metrics/registry';
import type { PriceTable } from '../modules/models';
import { ABORTED_STATUS, type UsageEvent, type UsageRecorder } from '../modules/usage';
import type { Tracing } from '../telemetry/tracing';
import { contextOf, type RequestContext } from './request-context';

const HANDLER_WAIT_MS = 120_000;

export interface MeteringDeps {
  usage: UsageRecorder;
  metrics: Metrics;
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
 * Meters a request once it is over, from its context's usage record: placed before authentication so that
 * refusals are counted too. Runs on 'finish' (response sent) or 'close' (client went away first: recorded as
 * 499). Synchronous and in memory: the request never waits on a database write.
 */
export function meter(deps: MeteringDeps): RequestHandler {
  // Made once per middleware, not per request: the response is the listeners' `this` and the timer's argument,
  // and what a request's end needs is kept in its context.
  const record = (res: Response): void => {
    const context = contextOf(res);
    if (context.metered) return;
    context.metered = true;
    if (context.meterTimer) clearTimeout(context.meterTimer);
    recordRequest(res.req, res, context, deps);
  };
  function ended(this: Response): void {
    const context = contextOf(this);
    if (context.endedAt !== 0) return;
    context.endedAt = performance.now();
    context.endedWall = context.clock.now();
    // Whether the response ended before the connection closed: judged once, when the first of the two fires.
    context.finished = this.writableFinished;
    if (!context.handlerRunning) {
      record(this);
      return;
    }
    // The client went away while the handler still works (a stream being cut): its final usage comes when it
    // returns. A handler that never returns is recorded anyway after HANDLER_WAIT_MS.
    const timer = setTimeout(record, HANDLER_WAIT_MS, this);
    // Not left pending: a timer would hold the request and response for minutes.
    timer.unref();
    context.meterTimer = timer;
    context.whenHandlerDone(record, this);
  }
  return (_req, res, next) => {
    // Both may fire; the first decides (the second is ignored).
    res.on('finish', ended);
    res.on('close', ended);
    next();
  };
}

function recordRequest(req: Request, res: Response, context: RequestContext, deps: MeteringDeps): void {
  const { principal, usage } = context;
  const status = context.finished ? (usage.status ?? res.statusCode) : ABORTED_STATUS;
  const latencyMs = Math.max(0, context.endedAt - context.startedAt);
  const route = context.route ?? req.path;
  deps.metrics.observeRequest(req.method, route, status, latencyMs);
  const occurredAt = context.endedWall - latencyMs;
  // One object of one shape per request: it is what the buffer keeps.
  const event: UsageEvent = {
    occurredAt,
    requestId: context.requestId,
    accountId: principal?.accountId ?? '',
    keyId: principal?.keyId ?? '',
    mode: principal?.mode ?? 'test',
    method: req.method,
    route,
    status,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    model: usage.model,
    deployment: usage.provider,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    // A cache hit cost nothing (no model call); what it saved is recorded beside it.
    costMicros:
      usage.cache === 'hit'
        ? 0
        : usage.model !== null && deps.prices
          ? deps.prices.costMicros(
              usage.model,
              usage.promptTokens ?? 0,
              usage.completionTokens ?? 0,
              occurredAt,
            )
          : null,
    cache: usage.cache,
    savedMicros: usage.savedMicros,
    errorType: usage.errorType,
    errorCode: usage.errorCode,
    errorMessage:
      usage.errorMessage ?? (status === ABORTED_STATUS ? 'The client closed the connection.' : null),
  };
  deps.tracing?.requestEnded({ headers: req.headers, event, provider: usage.provider ?? undefined });
  if (principal) {
    deps.usage.record(event);
    return;
  }
  // A well-formed key that was refused (revoked, or unknown): the writer attributes it if the key exists.
  if (context.keyHash !== null) {
    deps.usage.recordUnresolved({ ...event, keyHash: context.keyHash });
    return;
  }
  if (deps.anonymous !== 'ignore' || req.get('authorization') !== undefined) deps.metrics.unattributed(1);
}
